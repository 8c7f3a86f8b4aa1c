/**
 * The sanctions module's entry point (issue 36): the list in force (its tables
 * `sanctions_list` and `sanctioned_addresses`), its updates and the screening the other
 * modules reach through the ports of src/domain/sanctions-screening.ts.
 */
export { SanctionsService, SCREENING_ACTOR } from './sanctions.service';
export type { ListSubmission } from './sanctions.service';
export type { ListInForce } from './sanctions-store';
export { readSanctionsFile, submissionOfText, SHIPPED_SNAPSHOT_PATH } from './sanctions-file';
export { installSanctionsListAtStart } from './sanctions-startup';
