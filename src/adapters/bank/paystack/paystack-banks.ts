import type { Clock } from '../../../clock';
import type { PaystackClient } from './paystack-client';
import { isObject } from './paystack-json';

/** One of Paystack's Nigerian banks (`GET /bank`): `code` is the NIP/CBN code transfers take. */
export interface PaystackBank {
  id: number;
  name: string;
  slug: string;
  code: string;
}

/** The list changes when a bank joins or leaves: a day is fresh enough. */
const CACHE_MS = 24 * 60 * 60 * 1000;
const PER_PAGE = 100;
/** 10 pages of 100: several times the banks Paystack lists for Nigeria. */
const MAX_PAGES = 10;
/** Paystack's codes: 3 digits for banks, 5 or 6 for microfinance banks (`50457`, `999992`). */
export const BANK_CODE = /^[0-9]{3,6}$/;

function readBank(entry: unknown): PaystackBank | null {
  if (!isObject(entry)) return null;
  const { id, name, slug, code } = entry;
  if (typeof id !== 'number' || typeof name !== 'string' || typeof slug !== 'string') return null;
  if (typeof code !== 'string' || !BANK_CODE.test(code)) return null;
  return { id, name, slug, code };
}

const normalised = (name: string) => name.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * Paystack's list of Nigerian banks (`GET /bank?currency=NGN`, cursor paging as in PS-SNIP
 * `api/miscellaneous/bank/response.json`), fetched when first needed and kept a day. It turns
 * a dedicated account's `bank {id, slug}` into the bank's code, and a payer's bank as Paystack
 * names it in `charge.success` (`sender_bank: "First City Monument Bank"`) into the code a
 * transfer recipient needs.
 */
export class PaystackBanks {
  private banks: PaystackBank[] | null = null;
  private fetchedAt = 0;
  private inFlight: Promise<PaystackBank[]> | null = null;

  constructor(
    private readonly client: PaystackClient,
    private readonly clock: Clock,
  ) {}

  /** The code of a dedicated account's bank: by slug, then by Paystack's bank id. */
  async codeOfAccountBank(bank: { id?: unknown; slug?: unknown }): Promise<string | null> {
    const banks = await this.list();
    const bySlug = banks.find((b) => typeof bank.slug === 'string' && b.slug === bank.slug);
    const byId = banks.find((b) => typeof bank.id === 'number' && b.id === bank.id);
    return (bySlug ?? byId)?.code ?? null;
  }

  /** A code as given (3-6 digits), or the code of the bank of that name; null when unknown. */
  async codeFor(codeOrName: string): Promise<string | null> {
    const given = codeOrName.trim();
    if (BANK_CODE.test(given)) return given;
    if (given === '') return null;
    const wanted = normalised(given);
    const banks = await this.list();
    return banks.find((b) => normalised(b.name) === wanted || b.slug === wanted)?.code ?? null;
  }

  /** Fetches the list unless it is fresh (so a later look-up needs no call). */
  async load(): Promise<void> {
    await this.list();
  }

  private async list(): Promise<PaystackBank[]> {
    const now = this.clock.now().getTime();
    if (this.banks && now - this.fetchedAt < CACHE_MS) return this.banks;
    this.inFlight ??= this.fetch().finally(() => {
      this.inFlight = null;
    });
    const banks = await this.inFlight;
    this.banks = banks;
    this.fetchedAt = now;
    return banks;
  }

  private async fetch(): Promise<PaystackBank[]> {
    const banks: PaystackBank[] = [];
    let next: string | undefined;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const answer = await this.client.get('list banks', '/bank', {
        currency: 'NGN',
        use_cursor: true,
        perPage: PER_PAGE,
        next,
      });
      const entries = Array.isArray(answer.data) ? answer.data : [];
      for (const entry of entries) {
        const bank = readBank(entry);
        if (bank) banks.push(bank);
      }
      const cursor = isObject(answer.meta) ? answer.meta.next : null;
      if (typeof cursor !== 'string' || cursor === '' || entries.length === 0) break;
      next = cursor;
    }
    return banks;
  }
}
