import { Migration20261122000100_foundation } from './Migration20261122000100_foundation';

/** Listed explicitly so migrations run the same from `src` (tests) and `dist` (processes). */
export const migrationsList = [
  { name: 'Migration20261122000100_foundation', class: Migration20261122000100_foundation },
];
