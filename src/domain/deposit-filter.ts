import { invalidParameter } from './errors';
import { isDepositStatus, type DepositStatus } from './deposit-state-machine';

/** Filters as they arrive from either transport (strings, all optional). */
export interface DepositFilterInput {
  onrampId?: string | null;
  status?: string | null;
  from?: string | null;
  to?: string | null;
  updatedSince?: string | null;
}

export interface DepositFilter {
  onrampId?: string;
  status?: DepositStatus;
  /** created_at >= createdFrom */
  createdFrom?: Date;
  /** created_at < createdBefore (an inclusive `to` turned exclusive) */
  createdBefore?: Date;
  /** updated_at >= updatedSince */
  updatedSince?: Date;
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;
const DAY_MS = 86_400_000;

function parseDateOnly(name: string, value: string): Date {
  const [, y, m, d] = DATE_ONLY.exec(value)!;
  const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  if (
    date.getUTCFullYear() !== Number(y) ||
    date.getUTCMonth() !== Number(m) - 1 ||
    date.getUTCDate() !== Number(d)
  ) {
    throw invalidParameter(name, 'is not a valid date');
  }
  return date;
}

/**
 * ISO 8601 instants or dates. A date without a time means that whole UTC day: `from` starts
 * at its first instant and `to` includes its last. Timestamps must carry a zone.
 */
function parseBound(name: string, value: string, end: boolean): Date {
  if (DATE_ONLY.test(value)) {
    const day = parseDateOnly(name, value);
    return end ? new Date(day.getTime() + DAY_MS) : day;
  }
  if (!TIMESTAMP.test(value) || Number.isNaN(Date.parse(value))) {
    throw invalidParameter(name, 'must be an ISO 8601 date (2026-11-22) or timestamp with a zone');
  }
  const at = new Date(value);
  // `to` is inclusive: everything up to and including this millisecond.
  return end ? new Date(at.getTime() + 1) : at;
}

const present = (v: string | null | undefined): v is string =>
  v !== undefined && v !== null && v !== '';

export function parseDepositFilter(input: DepositFilterInput): DepositFilter {
  const filter: DepositFilter = {};
  if (present(input.onrampId)) {
    if (input.onrampId.length > 100) throw invalidParameter('onramp_id', 'is too long');
    filter.onrampId = input.onrampId;
  }
  if (present(input.status)) {
    if (!isDepositStatus(input.status)) {
      throw invalidParameter(
        'status',
        'must be one of PENDING_FX, PENDING_WITHDRAWAL, SETTLED, FAILED, FLAGGED, REVERSED',
      );
    }
    filter.status = input.status;
  }
  if (present(input.from)) filter.createdFrom = parseBound('from', input.from, false);
  if (present(input.to)) filter.createdBefore = parseBound('to', input.to, true);
  if (present(input.updatedSince)) {
    filter.updatedSince = parseBound('updated_since', input.updatedSince, false);
  }
  return filter;
}
