import { invalidParameter, missingParameter } from './errors';

/** A report's period: created_at >= from and < before. */
export interface ReportRange {
  from: Date;
  before: Date;
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;
const DAY_MS = 86_400_000;
/** Africa/Lagos is UTC+1 all year (no daylight saving): a Lagos day starts at 23:00 UTC. */
const LAGOS_OFFSET_MS = 3_600_000;
/** The longest period one export covers: a year and a day (a leap year's 366 days). */
export const MAX_REPORT_DAYS = 366;

function lagosDayStart(name: string, value: string): Date {
  const [, y, m, d] = DATE_ONLY.exec(value)!;
  const utc = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  if (
    utc.getUTCFullYear() !== Number(y) ||
    utc.getUTCMonth() !== Number(m) - 1 ||
    utc.getUTCDate() !== Number(d)
  ) {
    throw invalidParameter(name, 'is not a valid date');
  }
  return new Date(utc.getTime() - LAGOS_OFFSET_MS);
}

/**
 * `from` and `to` are both required. A date (2026-11-01) is an Africa/Lagos day, the day the
 * report's `lagos_date` column shows: `from` starts at its first instant and `to` includes its
 * last, so `from=2026-11-01&to=2026-11-30` is November in Lagos. A timestamp must carry its
 * zone; `to` includes that millisecond.
 */
function bound(name: string, value: string | undefined, end: boolean): Date {
  if (value === undefined || value === '') throw missingParameter(name);
  if (DATE_ONLY.test(value)) {
    const start = lagosDayStart(name, value);
    return end ? new Date(start.getTime() + DAY_MS) : start;
  }
  if (!TIMESTAMP.test(value) || Number.isNaN(Date.parse(value))) {
    throw invalidParameter(name, 'must be an ISO 8601 date (2026-11-01) or timestamp with a zone');
  }
  const at = new Date(value);
  return end ? new Date(at.getTime() + 1) : at;
}

export function parseReportRange(input: { from?: string; to?: string }): ReportRange {
  const from = bound('from', input.from, false);
  const before = bound('to', input.to, true);
  if (before.getTime() <= from.getTime()) throw invalidParameter('to', 'must not be before from');
  if (before.getTime() - from.getTime() > MAX_REPORT_DAYS * DAY_MS) {
    throw invalidParameter('to', `a report covers at most ${MAX_REPORT_DAYS} days`);
  }
  return { from, before };
}
