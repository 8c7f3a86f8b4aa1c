import { validateEvmAddress } from '../../src/domain/addresses';
import { DomainError } from '../../src/domain/errors';
import {
  addressBookRequired,
  withdrawalAddressDelaySeconds,
  withdrawalAddressStatus,
} from '../../src/domain/withdrawal-addresses';

describe('withdrawal address book rules', () => {
  const activeAt = new Date('2026-08-01T10:00:00.000Z');

  it('is PENDING before active_at and ACTIVE from that instant on', () => {
    expect(withdrawalAddressStatus(activeAt, new Date(activeAt.getTime() - 1))).toBe('PENDING');
    expect(withdrawalAddressStatus(activeAt, activeAt)).toBe('ACTIVE');
    expect(withdrawalAddressStatus(activeAt, new Date(activeAt.getTime() + 1))).toBe('ACTIVE');
  });

  it('waits a day in production and a minute in the sandbox unless configured', () => {
    expect(withdrawalAddressDelaySeconds(undefined, false)).toBe(86_400);
    expect(withdrawalAddressDelaySeconds(undefined, true)).toBe(60);
    expect(withdrawalAddressDelaySeconds(3, false)).toBe(3);
  });

  it('requires the address book in production unless the merchant said otherwise', () => {
    expect(addressBookRequired(null, false)).toBe(true);
    expect(addressBookRequired(null, true)).toBe(false);
    expect(addressBookRequired(false, false)).toBe(false);
    expect(addressBookRequired(true, true)).toBe(true);
  });

  it('normalises an address as withdrawals do (EIP-55), naming the field in errors', () => {
    const checksummed = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
    expect(validateEvmAddress(checksummed.toLowerCase(), 'BASE', 'address')).toBe(checksummed);
    expect(validateEvmAddress(checksummed.toUpperCase().replace('0X', '0x'), 'BASE')).toBe(
      checksummed,
    );
    const refused = (() => {
      try {
        validateEvmAddress(checksummed.replace('a', 'A'), 'BASE', 'address');
      } catch (error) {
        return error as DomainError;
      }
    })();
    expect(refused?.code).toBe('invalid_address');
    expect(refused?.message).toMatch(/^address is not a valid BASE address/);
  });
});
