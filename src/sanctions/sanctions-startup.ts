import { existsSync } from 'node:fs';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { readSanctionsFile, SHIPPED_SNAPSHOT_PATH } from './sanctions-file';
import type { SanctionsService } from './sanctions.service';

/**
 * Each gateway and job runner, before it takes traffic: puts SANCTIONS_LIST_PATH's file, else
 * the shipped snapshot, in force when `installAtStartup` says so. A SANCTIONS_LIST_PATH that
 * cannot be read or parsed stops the process (the operator named a list; running without it
 * would screen against another). A missing snapshot only warns: the list in force stays.
 */
export async function installSanctionsListAtStart(
  em: EntityManager,
  sanctions: SanctionsService,
  listPath: string | undefined,
  log: Logger,
): Promise<void> {
  if (!listPath && !existsSync(SHIPPED_SNAPSHOT_PATH)) {
    const inForce = await sanctions.status(em);
    log.warn(
      { snapshot: SHIPPED_SNAPSHOT_PATH, list_date: inForce?.listDate ?? null },
      inForce
        ? 'no shipped sanctions snapshot; the list in force stays'
        : 'no shipped sanctions snapshot and no list in force: nothing is screened until `onramp sanctions update FILE`',
    );
    return;
  }
  const submission = listPath
    ? await readSanctionsFile(listPath).catch((error: Error) => {
        throw new Error(`SANCTIONS_LIST_PATH ${listPath}: ${error.message}`);
      })
    : await readSanctionsFile(SHIPPED_SNAPSHOT_PATH, 'shipped snapshot');
  const { installed, inForce } = await sanctions.installAtStartup(em, submission);
  log.info(
    {
      list_date: inForce.listDate,
      addresses: inForce.addressCount,
      origin: inForce.origin,
      description: inForce.description,
    },
    installed ? 'sanctions list installed' : 'sanctions list in force kept',
  );
}
