/**
 * RFC 4180 CSV: fields separated by commas, records ended by CRLF, a field quoted when it holds
 * a comma, a quote, CR or LF, and quotes inside doubled. Amounts are written as the exact
 * decimal strings the API answers, never through a float.
 */

/** A cell: text from people or banks, or a value of ours (ids, amounts, dates, statuses). */
export type CsvCell = string | null;

const NEEDS_QUOTES = /[",\r\n]/;
/**
 * A text cell that a spreadsheet would run as a formula (CSV injection: a payer name or bank
 * reference starting with `=`, `+`, `-`, `@`, a tab or CR). Such cells are written with a
 * leading apostrophe, OWASP's advice; ids, amounts and dates are ours and are never touched.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvField(value: CsvCell): string {
  if (value === null) return '';
  return NEEDS_QUOTES.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** Text that came from outside (payer names, references): defused before it is quoted. */
export function csvText(value: string | null): CsvCell {
  if (value === null) return null;
  return FORMULA_START.test(value) ? `'${value}` : value;
}

export function csvRecord(cells: readonly CsvCell[]): string {
  return `${cells.map(csvField).join(',')}\r\n`;
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
