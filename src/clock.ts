/**
 * Time is injected: services and jobs ask a Clock, never `Date.now()`, so tests can move
 * time (rate expiry, TTLs, retry schedules) without sleeping.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = {
  now: () => new Date(),
};

/** A clock the caller moves by hand. Used by tests; production never constructs one. */
export class ManualClock implements Clock {
  private current: Date;

  constructor(start: Date | string = '2026-01-01T00:00:00Z') {
    this.current = new Date(start);
  }

  now(): Date {
    return new Date(this.current);
  }

  set(at: Date | string): void {
    this.current = new Date(at);
  }

  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}
