import { invalidParameter } from './errors';

/** `customer` on a create-onramp request, as both transports hand it over. */
export interface CustomerInput {
  firstName?: string | null;
  lastName?: string | null;
  phone?: string | null;
  bvn?: string | null;
  nin?: string | null;
}

/** The payer's customer record a bank provider may need before it opens an account. */
export interface OnrampCustomer {
  firstName?: string;
  lastName?: string;
  /** Digits with an optional leading +. */
  phone?: string;
  /** 11 digits. */
  bvn?: string;
  /** 11 digits. */
  nin?: string;
}

const NAME_MAX = 100;
/** A Nigerian number (080..., 234..., +234...) or another country's, 10-15 digits. */
const PHONE = /^\+?[0-9]{10,15}$/;
const IDENTITY_NUMBER = /^[0-9]{11}$/;

const given = (value: string | null | undefined): value is string =>
  value !== undefined && value !== null;

function name(field: string, raw: string | null | undefined): string | undefined {
  if (!given(raw)) return undefined;
  const trimmed = raw.trim();
  if (trimmed === '' || trimmed.length > NAME_MAX || !/\p{L}/u.test(trimmed)) {
    throw invalidParameter(`customer.${field}`, `must be a name of 1-${NAME_MAX} characters`);
  }
  return trimmed;
}

function identity(field: string, raw: string | null | undefined): string | undefined {
  if (!given(raw)) return undefined;
  if (!IDENTITY_NUMBER.test(raw)) throw invalidParameter(`customer.${field}`, 'must be 11 digits');
  return raw;
}

/** Checks `customer`; absent (or every field absent) is no customer record at all. */
export function parseCustomer(raw: CustomerInput | null | undefined): OnrampCustomer | null {
  if (raw === undefined || raw === null) return null;
  const phone = given(raw.phone) ? raw.phone.replace(/[\s-]/g, '') : undefined;
  if (phone !== undefined && !PHONE.test(phone)) {
    throw invalidParameter('customer.phone', 'must be 10-15 digits with an optional leading +');
  }
  const customer: OnrampCustomer = {};
  const firstName = name('first_name', raw.firstName);
  const lastName = name('last_name', raw.lastName);
  const bvn = identity('bvn', raw.bvn);
  const nin = identity('nin', raw.nin);
  if (firstName) customer.firstName = firstName;
  if (lastName) customer.lastName = lastName;
  if (phone) customer.phone = phone;
  if (bvn) customer.bvn = bvn;
  if (nin) customer.nin = nin;
  return Object.keys(customer).length === 0 ? null : customer;
}

/** What is shown back of an identity number: its last 4 digits only. */
export function lastFour(identityNumber: string | undefined): string | null {
  return identityNumber ? identityNumber.slice(-4) : null;
}
