const LAGOS = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Africa/Lagos',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

/** The Africa/Lagos calendar day of an instant, as YYYY-MM-DD: the "day" of daily limits. */
export function lagosDay(at: Date): string {
  return LAGOS.format(at);
}
