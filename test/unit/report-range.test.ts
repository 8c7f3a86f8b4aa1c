import { parseReportRange } from '../../src/domain/report-range';
import { DomainError } from '../../src/domain/errors';

function refusal(input: { from?: string; to?: string }) {
  try {
    parseReportRange(input);
  } catch (error) {
    if (error instanceof DomainError) return [error.code, error.message];
    throw error;
  }
  throw new Error('accepted');
}

describe('report periods', () => {
  it('reads dates as Africa/Lagos days (UTC+1), `to` including its whole day', () => {
    expect(parseReportRange({ from: '2026-11-01', to: '2026-11-30' })).toEqual({
      from: new Date('2026-10-31T23:00:00.000Z'),
      before: new Date('2026-11-30T23:00:00.000Z'),
    });
  });

  it('takes timestamps with a zone, `to` including its millisecond', () => {
    expect(
      parseReportRange({ from: '2026-11-01T10:00:00+01:00', to: '2026-11-01T12:00:00.250Z' }),
    ).toEqual({
      from: new Date('2026-11-01T09:00:00.000Z'),
      before: new Date('2026-11-01T12:00:00.251Z'),
    });
  });

  it('needs both bounds', () => {
    expect(refusal({ to: '2026-11-01' })).toEqual([
      'missing_parameter',
      'Missing required parameter: from',
    ]);
    expect(refusal({ from: '2026-11-01' })[0]).toBe('missing_parameter');
    expect(refusal({ from: '', to: '2026-11-01' })[0]).toBe('missing_parameter');
  });

  it('refuses bad dates, zoneless timestamps, reversed and over-long periods', () => {
    expect(refusal({ from: '2026-02-30', to: '2026-03-01' })[0]).toBe('invalid_parameter');
    expect(refusal({ from: '2026-11-01T10:00:00', to: '2026-11-02' })[0]).toBe('invalid_parameter');
    expect(refusal({ from: 'yesterday', to: '2026-11-02' })[0]).toBe('invalid_parameter');
    expect(refusal({ from: '2026-11-02', to: '2026-11-01' })[0]).toBe('invalid_parameter');
    expect(refusal({ from: '2025-01-01', to: '2026-01-02' })[0]).toBe('invalid_parameter');
    // A leap year's 366 days are one report.
    expect(() => parseReportRange({ from: '2028-01-01', to: '2028-12-31' })).not.toThrow();
  });

  it('takes one Lagos day alone', () => {
    const { from, before } = parseReportRange({ from: '2026-11-25', to: '2026-11-25' });
    expect(before.getTime() - from.getTime()).toBe(86_400_000);
  });
});
