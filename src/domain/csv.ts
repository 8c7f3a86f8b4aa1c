/**
 * RFC 4180 CSV: fields separated by commas, records ended by CRLF, a field quoted when it holds
 * a comma, a quote, CR or LF, and quotes inside doubled. Amounts are written as the exact
 * decimal strings the API answers, never through a float; every other cell is text, defused
 * against formulas.
 */

/**
 * An exact decimal of ours (an amount, possibly negative like a ledger debit's `net`): written
 * as it is, so a spreadsheet reads a number. Made only by `csvNumber`, which checks the shape.
 */
export class CsvNumber {
  constructor(readonly text: string) {}
}

/**
 * A cell: text, a number, or empty. Text is every cell that is not an amount, whether it came
 * from people or banks (payer names, references, e-mail addresses, reasons, account digits)
 * or is ours (ids, dates, statuses): all of it is defused, so a column added later, or a value
 * of ours that turns out to carry outside text (a flag or failure reason), cannot slip through.
 */
export type CsvCell = string | CsvNumber | null;

const NEEDS_QUOTES = /[",\r\n]/;
/**
 * A text cell that a spreadsheet would run as a formula (CSV injection: a payer name or bank
 * reference starting with `=`, `+`, `-`, `@`, a tab or CR). Such cells are written with a
 * leading apostrophe, OWASP's advice (docs/api.md, "Reconciliation exports").
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const EXACT_DECIMAL = /^-?[0-9]+(?:\.[0-9]+)?$/;

export function csvField(value: string | null): string {
  if (value === null) return '';
  return NEEDS_QUOTES.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** Text defused before it is quoted: a formula's first character gets a leading `'`. */
export function csvText(value: string | null): string | null {
  if (value === null) return null;
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/**
 * An amount cell: an exact decimal string stays a number (`-1500.00` is not a formula). Anything
 * else given here is not an amount after all and is written as text, defused.
 */
export function csvNumber(value: string | null): CsvCell {
  if (value === null) return null;
  return EXACT_DECIMAL.test(value) ? new CsvNumber(value) : value;
}

function csvCell(value: CsvCell): string {
  if (value instanceof CsvNumber) return value.text;
  return csvField(csvText(value));
}

export function csvRecord(cells: readonly CsvCell[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** Parses RFC 4180 text back into records (tests and the CLI's checks read exports with it). */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i++;
    } else field += c;
  }
  if (field !== '' || record.length > 0) {
    record.push(field);
    records.push(record);
  }
  return records;
}
