import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * PostgreSQL's SQLSTATEs are read in one file, src/db/pg-failures.ts (issue 34): everything
 * else asks it. This fails when a SQLSTATE literal, or a check on MikroORM's exception classes
 * (which stand for SQLSTATEs), appears anywhere else in src or jobs. Migrations are exempt
 * (they are the schema's history).
 */
const ROOT = join(__dirname, '..', '..');
const HOME = 'src/db/pg-failures.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return path === 'src/db/migrations' ? [] : sourceFiles(path);
    return /\.(ts|js|mjs|cjs)$/.test(entry.name) ? [path] : [];
  });
}

/** Every quoted 5-character SQLSTATE pg-failures.ts itself knows, plus common others. */
function knownCodes(): Set<string> {
  const home = readFileSync(join(ROOT, HOME), 'utf8');
  const own = [...home.matchAll(/'([0-9][0-9A-Z]{4})'/g)].map((m) => m[1]);
  // Not classified there, but their appearance elsewhere would be the same knowledge.
  const others = ['23502', '23503', '23514', '25P02', '42601', '42703', '53300', '57014'];
  return new Set([...own, ...others]);
}

/**
 * Quoted SQLSTATEs: a known one, any code of a class 00-59 with a letter in it (40P01, 3D000),
 * or of the PL/pgSQL (P0) and internal (XX) classes. All-digit codes outside the known list
 * are left alone: they cannot be told from amounts, ports and bank codes.
 */
function offending(text: string, known: Set<string>): string[] {
  const quoted = [...text.matchAll(/['"`]([0-9A-Z]{5})['"`]/g)].map((m) => m[1]);
  const codes = quoted.filter(
    (code) =>
      known.has(code) || (/^[0-5][0-9]/.test(code) && /[A-Z]/.test(code)) || /^(P0|XX)/.test(code),
  );
  const classes = [
    ...text.matchAll(
      /\b(UniqueConstraintViolationException|DeadlockException|LockWaitTimeoutException|ConnectionException)\b/g,
    ),
  ].map((m) => m[1]);
  return [...codes, ...classes];
}

describe('SQLSTATE knowledge', () => {
  it(`lives in ${HOME} only`, () => {
    const known = knownCodes();
    for (const code of ['23505', '40001', '40P01', '23P01']) expect(known.has(code)).toBe(true);
    const breaches = [...sourceFiles('src'), ...sourceFiles('jobs')]
      .filter((path) => path !== HOME)
      .flatMap((path) =>
        offending(readFileSync(join(ROOT, path), 'utf8'), known).map((code) => `${path}: ${code}`),
      );
    expect(breaches).toEqual([]);
  });

  it('catches the forms it looks for', () => {
    const known = knownCodes();
    expect(offending(`if (code === '23505') return;`, known)).toEqual(['23505']);
    expect(offending(`new Set(["40001", "40P01"])`, known)).toEqual(['40001', '40P01']);
    expect(offending('[`3D000`, `57P03`, `P0001`]', known)).toEqual(['3D000', '57P03', 'P0001']);
    expect(offending('e instanceof DeadlockException', known)).toEqual(['DeadlockException']);
    // Not SQLSTATEs: a bank code, a five-digit amount, a bank id, a word.
    expect(offending(`'035', '10000', \`50457\`, 'ABCDE'`, known)).toEqual([]);
  });
});
