import { z } from 'zod';
import { parseKey } from './crypto/secret-box';

/** The kinds of value configuration variables take (src/config.ts), each with its message. */
export const positiveInt = (fallback: number) =>
  z.coerce.number().int().positive().default(fallback);
/** A whole number of at least 1, or unset for a default that depends on ONRAMP_ENV. */
export const optionalPositiveInt = z.coerce.number().int().positive().optional();
export const usdAmount = (fallback: string) =>
  z
    .string()
    .regex(/^[0-9]{1,12}(\.[0-9]{1,6})?$/, 'must be a USD amount such as 1000 or 1000.50')
    .default(fallback);
export const optionalUrl = z
  .string()
  .url()
  .optional()
  .or(z.literal('').transform(() => undefined));

export const KEY_FORMAT =
  'must be 32 random bytes as 64 hex digits or base64 (openssl rand -base64 32)';
export const encryptionKey = z.string().refine((text) => parseKey(text) !== null, KEY_FORMAT);
export const encryptionKeyList = z
  .string()
  .refine((text) => text.split(',').every((part) => parseKey(part) !== null), {
    message: `each comma-separated key ${KEY_FORMAT}`,
  });

export const optionalAddress = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte address')
  .optional();

/** `true`/`false`, or unset for a default that depends on ONRAMP_ENV. */
export const optionalBoolean = z
  .enum(['true', 'false'], { message: 'must be true or false' })
  .optional()
  .transform((value) => (value === undefined ? undefined : value === 'true'));
