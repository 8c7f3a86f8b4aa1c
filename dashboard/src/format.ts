// Display helpers. Money stays a decimal string end to end: it is shown as the API sent it, and the
// only arithmetic (a chart total) is done on integers of micro-units, never on floats.

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** An ISO timestamp in the viewer's locale and time zone; '' for null, the input if unparseable. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTime.format(date);
}

/** A <time> element showing `iso` in local time, machine-readable in its datetime attribute. */
export function timeElement(iso: string | null | undefined): HTMLTimeElement | string {
  if (!iso) return '—';
  const el = document.createElement('time');
  el.dateTime = iso;
  el.textContent = formatTime(iso);
  return el;
}

/** Seconds as m:ss (or h:mm:ss past an hour); negative counts as 0. */
export function formatCountdown(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds));
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const seconds = String(s % 60).padStart(2, '0');
  return hours > 0
    ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}`
    : `${minutes}:${seconds}`;
}

/** '—' for absent values, the value otherwise. */
export function orDash(value: string | number | null | undefined): string {
  return value === null || value === undefined || value === '' ? '—' : String(value);
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/** Sums decimal strings exactly with `places` fractional digits (extra digits are truncated). */
export function sumDecimals(values: readonly string[], places: number): string {
  const scale = 10n ** BigInt(places);
  let total = 0n;
  for (const value of values) {
    const match = DECIMAL.exec(value.trim());
    if (!match) continue;
    const [, sign, whole, fraction = ''] = match;
    const units =
      BigInt(whole) * scale + BigInt(fraction.padEnd(places, '0').slice(0, places) || '0');
    total += sign === '-' ? -units : units;
  }
  const negative = total < 0n;
  const abs = negative ? -total : total;
  const whole = (abs / scale).toString();
  const fraction = (abs % scale).toString().padStart(places, '0');
  return `${negative ? '-' : ''}${whole}${places > 0 ? `.${fraction}` : ''}`;
}
