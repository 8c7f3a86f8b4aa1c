/**
 * Whether the name on a bank transfer is the payer the merchant expected. Bank names come in
 * every form ("OKAFOR ADAEZE CHIOMA", "Okafor, Adaeze C.", "MRS ADAEZE OKAFOR"), so the match
 * ignores what does not identify a person and asks for enough of what does:
 *
 * 1. Normalise: accents dropped, case ignored, apostrophes removed ("O'Brien" = "OBrien"),
 *    every other non-letter splits names ("Okafor,Adaeze" = "Okafor Adaeze").
 * 2. Titles and honorifics are dropped (Mr, Mrs, Dr, Chief, Alhaji, Engr, ...), and a few
 *    common spellings are one name (Mohammed, Muhammad, Muhd, ...).
 * 3. Two adjacent parts of one side that spell a part of the other are joined
 *    ("Oluwa Seun" = "Oluwaseun").
 * 4. Order is ignored. Every part of the SHORTER name must pair with a distinct part of the
 *    longer: equal parts, or an initial with a part starting with that letter ("A." = "Adaeze").
 * 5. At least two pairs, at least one of them full name to full name: "A. Okafor" matches
 *    "Adaeze Okafor", "Okafor" alone or "A. C." alone does not. A one-part name matches only
 *    the same one-part name.
 * An empty name (after normalising) never matches.
 */

const TITLES = new Set([
  'mr',
  'mrs',
  'ms',
  'miss',
  'mister',
  'master',
  'dr',
  'doctor',
  'chief',
  'prof',
  'professor',
  'engr',
  'eng',
  'barr',
  'barrister',
  'alhaji',
  'alh',
  'alhaja',
  'hajia',
  'hajiya',
  'mallam',
  'pastor',
  'pst',
  'rev',
  'revd',
  'reverend',
  'fr',
  'father',
  'sir',
  'dame',
  'lady',
  'madam',
  'hon',
  'honourable',
  'otunba',
  'oba',
  'hrh',
  'prince',
  'princess',
  'capt',
  'col',
  'gen',
  'arc',
  'pharm',
  'jnr',
  'jr',
  'snr',
  'sr',
  'esq',
]);

/** Spellings of one name, each to its first form. */
const SAME_NAME: Record<string, string> = {
  mohammed: 'muhammad',
  mohammad: 'muhammad',
  muhammed: 'muhammad',
  mohamed: 'muhammad',
  muhd: 'muhammad',
  mohd: 'muhammad',
  abdulahi: 'abdullahi',
  ibraheem: 'ibrahim',
  yussuf: 'yusuf',
  yusuph: 'yusuf',
};

/** The name's parts, normalised, titles dropped. */
export function nameParts(name: string): string[] {
  const plain = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/['\u2019`]/g, '');
  return plain
    .split(/[^a-z]+/)
    .filter((part) => part !== '' && !TITLES.has(part))
    .map((part) => SAME_NAME[part] ?? part);
}

/** Joins two adjacent parts of `parts` when they spell a part of `other`. */
function joinSplitParts(parts: string[], other: string[]): string[] {
  const wanted = new Set(other);
  const out: string[] = [];
  for (let i = 0; i < parts.length; i += 1) {
    const joined = i + 1 < parts.length ? parts[i] + parts[i + 1] : null;
    if (joined && wanted.has(joined) && !wanted.has(parts[i])) {
      out.push(joined);
      i += 1;
    } else out.push(parts[i]);
  }
  return out;
}

const isInitial = (part: string) => part.length === 1;

function pairs(shorter: string[], longer: string[]): { pairs: number; full: number } | null {
  const free = [...longer];
  let full = 0;
  // Full parts first (exact), then initials, so an initial never takes a part a full name needs.
  const ordered = [...shorter.filter((p) => !isInitial(p)), ...shorter.filter(isInitial)];
  for (const part of ordered) {
    let at = free.indexOf(part);
    if (at >= 0 && !isInitial(part)) full += 1;
    if (at < 0 && isInitial(part)) at = free.findIndex((f) => f.startsWith(part));
    if (at < 0 && !isInitial(part)) at = free.findIndex((f) => isInitial(f) && part.startsWith(f));
    if (at < 0) return null;
    free.splice(at, 1);
  }
  return { pairs: shorter.length, full };
}

/** True when `received` (the bank's payer name) is the person `expected` names. */
export function payerNameMatches(expected: string, received: string): boolean {
  let a = nameParts(expected);
  let b = nameParts(received);
  if (a.length === 0 || b.length === 0) return false;
  a = joinSplitParts(a, b);
  b = joinSplitParts(b, a);
  if (a.length === 1 && b.length === 1) return a[0] === b[0] && !isInitial(a[0]);
  const [shorter, longer] = a.length <= b.length ? [a, b] : [b, a];
  const result = pairs(shorter, longer);
  return result !== null && result.pairs >= 2 && result.full >= 1;
}
