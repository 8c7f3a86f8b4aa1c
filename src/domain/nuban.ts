/**
 * CBN NUBAN (Nigeria Uniform Bank Account Number): a 9-digit serial plus one check digit,
 * computed over the 3-digit bank code followed by the serial. Pure: no I/O.
 */

const WEIGHTS = [3, 7, 3, 3, 7, 3, 3, 7, 3, 3, 7, 3] as const;
const BANK_CODE = /^[0-9]{3}$/;
const SERIAL = /^[0-9]{9}$/;
const ACCOUNT_NUMBER = /^[0-9]{10}$/;
const MAX_SERIAL = 999_999_999;

function assertBankCode(bankCode: string): void {
  if (!BANK_CODE.test(bankCode)) throw new RangeError(`bank code must be 3 digits: ${bankCode}`);
}

/** The check digit for `bankCode` (3 digits) and `serial` (9 digits, zero-padded). */
export function nubanCheckDigit(bankCode: string, serial: string): number {
  assertBankCode(bankCode);
  if (!SERIAL.test(serial)) throw new RangeError(`serial must be 9 digits: ${serial}`);
  const digits = bankCode + serial;
  let sum = 0;
  for (let i = 0; i < WEIGHTS.length; i++) sum += Number(digits[i]) * WEIGHTS[i];
  return (10 - (sum % 10)) % 10;
}

/** The 10-digit account number for a numeric serial (1..999999999) at `bankCode`. */
export function nubanFor(bankCode: string, serial: number): string {
  assertBankCode(bankCode);
  if (!Number.isInteger(serial) || serial < 1 || serial > MAX_SERIAL) {
    throw new RangeError(`serial must be an integer in 1..${MAX_SERIAL}: ${serial}`);
  }
  const padded = String(serial).padStart(9, '0');
  return `${padded}${nubanCheckDigit(bankCode, padded)}`;
}

/** True when `accountNumber` is 10 digits whose last digit is the check digit at `bankCode`. */
export function isValidNuban(bankCode: string, accountNumber: string): boolean {
  if (!BANK_CODE.test(bankCode) || !ACCOUNT_NUMBER.test(accountNumber)) return false;
  return nubanCheckDigit(bankCode, accountNumber.slice(0, 9)) === Number(accountNumber[9]);
}
