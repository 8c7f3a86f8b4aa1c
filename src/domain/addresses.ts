import { getAddress, isAddress, zeroAddress } from 'viem';
import { DomainError, ErrorCode } from './errors';
import { CHAINS, type Chain } from './assets';

/** `ETH` is accepted as an alias of `ETHEREUM` and answered as `ETHEREUM`. */
export function parseChain(value: string): Chain | undefined {
  const upper = value === 'ETH' ? 'ETHEREUM' : value;
  return (CHAINS as readonly string[]).includes(upper) ? (upper as Chain) : undefined;
}

/**
 * An EVM address for any of our chains: 0x + 40 hex digits; mixed case must carry a valid
 * EIP-55 checksum; the zero address is refused (tokens sent there are burnt). Returns the
 * checksummed form.
 */
export function validateEvmAddress(
  address: string,
  chain: Chain,
  field = 'destination_address',
): string {
  const invalid = (why: string) =>
    new DomainError(ErrorCode.InvalidAddress, `${field} is not a valid ${chain} address: ${why}`);
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw invalid('expected 0x followed by 40 hex digits');
  const hex = address.slice(2);
  // Single-case addresses carry no checksum (EIP-55); only mixed case must pass it.
  const mixedCase = hex !== hex.toLowerCase() && hex !== hex.toUpperCase();
  if (mixedCase && !isAddress(address, { strict: true })) {
    throw invalid('mixed-case address fails its EIP-55 checksum');
  }
  const checksummed = getAddress(address);
  if (checksummed === zeroAddress) throw invalid('the zero address cannot receive funds');
  return checksummed;
}
