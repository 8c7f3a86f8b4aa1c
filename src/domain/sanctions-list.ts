import { isAddress } from 'viem';

/**
 * The bounds of a sanctions list file (docs/decisions.md, "Sanctions screening"). The OFAC
 * SDN list names about 160 EVM addresses; these leave room for hundreds of times that while
 * keeping a refused file cheap: a file over MAX_BYTES is refused before it is read, and one
 * with more lines is refused at line MAX_LINES + 1, so a 1,000,000-line file costs at most
 * MAX_BYTES of memory and a scan of MAX_LINES lines.
 */
export const SANCTIONS_LIST_LIMITS = {
  maxLines: 100_000,
  maxBytes: 8 * 1024 * 1024,
} as const;

/** What a list file holds: its addresses (lower case, each once) and its stated date. */
export interface SanctionsList {
  addresses: string[];
  /** From a `# date: YYYY-MM-DD` comment; null when the file states none. */
  listDate: string | null;
}

/** A list file refused whole; `line` is 1-based (null: the file as a whole). */
export class SanctionsListError extends Error {
  constructor(
    message: string,
    readonly line: number | null,
  ) {
    super(message);
    this.name = 'SanctionsListError';
  }
}

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const DATE_COMMENT = /^#\s*date:\s*(\S+)\s*$/i;
const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
/** A line longer than this is refused at once (an address with a comment fits many times). */
const MAX_LINE_CHARS = 1000;

/** The form addresses are stored and compared in: lower case (so checksum form matches too). */
export function sanctionsKey(address: string): string {
  return address.toLowerCase();
}

/**
 * Parses a list: one EVM address per line, in lower, upper or EIP-55 checksum case; blank
 * lines and `#` comments (whole-line or after the address) ignored. Any other line refuses
 * the whole file, naming the line, so a typo can never shrink the list in force. Mixed case
 * must pass its checksum, as destination addresses must (src/domain/addresses.ts): a wrong
 * one means a mistyped address. Lines are scanned without splitting the text, so a huge file
 * stops at MAX_LINES + 1 without building a million strings.
 */
export function parseSanctionsList(
  text: string,
  limits: { maxLines: number } = SANCTIONS_LIST_LIMITS,
): SanctionsList {
  const addresses = new Set<string>();
  let listDate: string | null = null;
  let start = 0;
  for (let line = 1; start < text.length; line += 1) {
    const end = text.indexOf('\n', start);
    const stop = end === -1 ? text.length : end;
    if (line > limits.maxLines) {
      throw new SanctionsListError(
        `the list has more than ${limits.maxLines.toLocaleString('en-US')} lines (the maximum)`,
        line,
      );
    }
    if (stop - start > MAX_LINE_CHARS) {
      throw new SanctionsListError(
        `line ${line} is longer than ${MAX_LINE_CHARS} characters`,
        line,
      );
    }
    const raw = text.slice(start, stop).trim();
    start = stop + 1;
    const date = DATE_COMMENT.exec(raw);
    if (date) {
      listDate = checkedDate(date[1], line);
      continue;
    }
    const entry = raw.replace(/#.*$/, '').trim();
    if (entry === '') continue;
    addresses.add(checkedAddress(entry, line));
  }
  return { addresses: [...addresses], listDate };
}

function checkedAddress(entry: string, line: number): string {
  const shown = entry.length > 60 ? `${entry.slice(0, 60)}...` : entry;
  if (!EVM_ADDRESS.test(entry)) {
    throw new SanctionsListError(
      `line ${line}: "${shown}" is not an EVM address (0x followed by 40 hex digits)`,
      line,
    );
  }
  const hex = entry.slice(2);
  const mixedCase = hex !== hex.toLowerCase() && hex !== hex.toUpperCase();
  if (mixedCase && !isAddress(entry, { strict: true })) {
    throw new SanctionsListError(
      `line ${line}: "${shown}" is mixed case but fails its EIP-55 checksum (a mistyped address?)`,
      line,
    );
  }
  return sanctionsKey(entry);
}

function checkedDate(value: string, line: number): string {
  const match = ISO_DAY.exec(value);
  const day = match ? new Date(`${value}T00:00:00Z`) : null;
  if (!day || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== value) {
    throw new SanctionsListError(`line ${line}: the date "${value}" is not YYYY-MM-DD`, line);
  }
  return value;
}
