import { closeReason } from '../../src/api/ws-close';

describe('closeReason', () => {
  it('keeps reasons of up to 123 bytes as they are', () => {
    expect(closeReason('Unauthorized: credential revoked')).toBe(
      'Unauthorized: credential revoked',
    );
    expect(closeReason('a'.repeat(123))).toBe('a'.repeat(123));
  });

  it('cuts longer ones at a character boundary, within 123 bytes of UTF-8', () => {
    expect(closeReason(`Subscriber for ${'x'.repeat(300)} already exists`)).toBe(
      `Subscriber for ${'x'.repeat(108)}`,
    );
    // Two-byte characters: never half of one.
    const cut = closeReason('é'.repeat(100));
    expect(cut).toBe('é'.repeat(61));
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(123);
  });
});
