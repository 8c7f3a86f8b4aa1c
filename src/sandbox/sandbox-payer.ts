import { createHash } from 'node:crypto';
import { invalidParameter } from '../domain/errors';

/** A sandbox transfer's payer as the caller gives it (REST snake_case, GraphQL mapped). */
export interface SandboxPayerInput {
  account_name?: string | null;
  account_number?: string | null;
  bank_code?: string | null;
}

export interface SandboxPayer {
  senderName: string;
  senderAccount: string;
  senderBank: string;
}

// A few real-looking payers; the sandbox picks one from the bank reference, so a test that
// replays a reference sees the same payer, and different references usually differ.
const FIRST = ['Adaeze', 'Chinedu', 'Oluwaseun', 'Aminu', 'Ngozi', 'Tunde', 'Halima', 'Emeka'];
const LAST = ['Okafor', 'Adeyemi', 'Bello', 'Eze', 'Ibrahim', 'Okonkwo', 'Balogun', 'Nwosu'];
const BANK_CODES = ['058', '044', '011', '033', '057', '232', '035', '070'];

/**
 * The payer of a simulated transfer: the one given (each field may be left out and is then
 * made up), else one made up deterministically from the bank reference.
 */
export function sandboxPayer(
  bankReference: string,
  given?: SandboxPayerInput | null,
): SandboxPayer {
  if (given?.account_number != null && !/^[0-9]{10}$/.test(given.account_number)) {
    throw invalidParameter('payer.account_number', 'must be 10 digits');
  }
  const digest = createHash('sha256').update(bankReference).digest();
  const madeUpAccount = Array.from(digest.subarray(0, 10), (b) => String(b % 10)).join('');
  return {
    senderName:
      given?.account_name ??
      `${LAST[digest[10] % LAST.length]} ${FIRST[digest[11] % FIRST.length]}`.toUpperCase(),
    senderAccount: given?.account_number ?? madeUpAccount,
    senderBank: given?.bank_code ?? BANK_CODES[digest[12] % BANK_CODES.length],
  };
}
