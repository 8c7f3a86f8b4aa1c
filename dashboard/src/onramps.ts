// Onramps section: create an onramp (settling to the merchant balance) and list the newest ones.

import { gql } from './api.js';
import { CREATE_ONRAMP_MUTATION, ONRAMPS_QUERY } from './documents.js';
import { busy, byId, h, Messages, setText, syncRows } from './dom.js';
import { customerText, type CustomerSummary } from './customer-text.js';
import { formatTime, orDash, timeElement } from './format.js';
import type { RateSection } from './rate.js';

export interface Onramp {
  onrampId: string;
  type: string;
  status: string;
  userEmail: string;
  rateId: string | null;
  expiresAt: string | null;
  createdAt: string;
  virtualAccount: {
    accountNumber: string;
    accountName: string;
    bankName: string;
    bankCode: string;
  };
  customer: CustomerSummary | null;
}

const PAGE_SIZE = 20;

export class OnrampsSection {
  private readonly messages = Messages.of('onramps');
  private readonly form = byId<HTMLFormElement>('onramp-form');
  private readonly type = byId<HTMLSelectElement>('onramp-type');
  private readonly email = byId<HTMLInputElement>('onramp-email');
  private readonly tbody = byId<HTMLTableElement>('onramps-table').tBodies[0];
  private readonly empty = byId('onramps-empty');
  private onramps: Onramp[] = [];

  /** Called with each onramp this page creates (the sandbox form pre-fills its account). */
  onCreated: (onramp: Onramp) => void = () => undefined;

  constructor(private readonly rate: RateSection) {
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      const button = this.form.querySelector<HTMLButtonElement>('button[type="submit"]');
      if (button) void busy(button, () => this.create());
    });
  }

  async load(): Promise<void> {
    try {
      const data = await gql<{ onramps: { edges: { node: Onramp }[] } }>(ONRAMPS_QUERY, {
        first: PAGE_SIZE,
      });
      this.onramps = data.onramps.edges.map((edge) => edge.node);
      this.render();
    } catch (error) {
      this.messages.error(error);
    }
  }

  /** The account number of the newest active onramp, if any. */
  newestActiveAccount(): string | null {
    return this.onramps.find((o) => o.status === 'ACTIVE')?.virtualAccount.accountNumber ?? null;
  }

  reset(): void {
    this.onramps = [];
    this.render();
    this.messages.clear();
  }

  private async create(): Promise<void> {
    const type = this.type.value;
    const email = this.email.value.trim();
    if (!email) {
      this.messages.error('Enter the user email.');
      this.email.focus();
      return;
    }
    try {
      const input: Record<string, unknown> = {
        type,
        user: { email },
        settlement: { mode: 'MERCHANT_BALANCE' },
      };
      if (type !== 'PERMANENT') input.rateId = await this.rate.freshRateId();
      const { createOnramp } = await gql<{
        createOnramp: { clientSecret: string; onramp: Onramp };
      }>(CREATE_ONRAMP_MUTATION, { input });
      const onramp = createOnramp.onramp;
      this.onramps = [onramp, ...this.onramps.filter((o) => o.onrampId !== onramp.onrampId)].slice(
        0,
        PAGE_SIZE,
      );
      this.render(onramp.onrampId);
      this.messages.info(
        `Created ${onramp.onrampId}: pay into ${onramp.virtualAccount.accountNumber} ` +
          `(${onramp.virtualAccount.bankName}). Client secret, shown once: ${createOnramp.clientSecret}`,
      );
      this.onCreated(onramp);
    } catch (error) {
      this.messages.error(error);
    }
  }

  private render(newId?: string): void {
    syncRows(
      this.tbody,
      this.onramps,
      (o) => o.onrampId,
      'data-onramp-id',
      (o) => {
        const row = h('tr');
        if (o.onrampId === newId) row.classList.add('is-new');
        for (let i = 0; i < 9; i++) row.append(h('td'));
        const cells = row.cells;
        cells[0].className = 'mono';
        cells[3].className = 'account-number';
        this.fill(row, o);
        return row;
      },
      (row, o) => this.fill(row, o),
    );
    this.empty.hidden = this.onramps.length > 0;
  }

  private fill(row: HTMLTableRowElement, o: Onramp): void {
    const cells = row.cells;
    setText(cells[0], o.onrampId);
    setText(cells[1], o.type);
    setText(cells[2], o.status);
    setText(cells[3], o.virtualAccount.accountNumber);
    setText(cells[4], `${o.virtualAccount.bankName} · ${o.virtualAccount.accountName}`);
    setText(cells[5], o.userEmail);
    setText(cells[8], customerText(o.customer));
    if (cells[6].textContent !== (o.expiresAt ? formatTime(o.expiresAt) : '—')) {
      cells[6].replaceChildren(o.expiresAt ? timeElement(o.expiresAt) : orDash(null));
    }
    if (!cells[7].firstChild) cells[7].append(timeElement(o.createdAt));
  }
}
