// Deposit detail: every field of one deposit, its status history and its transaction hash (with a
// block-explorer link for the chains we know; a plain link, nothing is loaded from the explorer).

import { gql } from './api.js';
import { DEPOSIT_QUERY } from './documents.js';
import { byId, h, Messages, setText } from './dom.js';
import { orDash, timeElement } from './format.js';
import { returnToPayerButton } from './return-to-payer.js';
import { resolutionLinkAction } from './resolution-link.js';
import type { Deposit } from './deposits.js';

interface StatusChange {
  status: string;
  event: string;
  at: string;
}

interface DepositDetail extends Deposit {
  paymentReference: string;
  userEmail: string;
  rateId: string | null;
  payer: { accountName: string | null; accountNumberLast4: string | null; bankCode: string | null };
  statusHistory: StatusChange[];
}

/** "ADAEZE OKAFOR, ••••6789, bank 058": the payer as the bank reported it (never the number). */
export function payerText(payer: DepositDetail['payer'] | null | undefined): string {
  if (!payer) return '—';
  const parts = [
    payer.accountName,
    payer.accountNumberLast4 ? `••••${payer.accountNumberLast4}` : null,
    payer.bankCode ? `bank ${payer.bankCode}` : null,
  ].filter((part): part is string => !!part);
  return parts.length ? parts.join(', ') : '—';
}

const EXPLORERS: Record<string, string> = {
  BASE: 'https://basescan.org/tx/',
  ETHEREUM: 'https://etherscan.io/tx/',
  ETH: 'https://etherscan.io/tx/',
  POLYGON: 'https://polygonscan.com/tx/',
};

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

/** The explorer page of a transaction, or null for unknown chains or malformed hashes. */
export function explorerUrl(chain: string | null, txHash: string | null): string | null {
  if (!chain || !txHash || !TX_HASH.test(txHash)) return null;
  const base = EXPLORERS[chain.toUpperCase()];
  return base ? base + txHash : null;
}

export class DepositDetailSection {
  private readonly region = byId('deposit-detail');
  private readonly heading = byId('deposit-detail-heading');
  private readonly fields = byId('deposit-detail-fields');
  private readonly history = byId('deposit-detail-history');
  private readonly messages = Messages.of('deposit-detail');
  private depositId: string | null = null;
  private seq = 0;

  /** Called when the panel opens or closes (the deposits table highlights the row). */
  onSelect: (depositId: string | null) => void = () => undefined;

  constructor() {
    byId('deposit-detail-close').addEventListener('click', () => this.close());
    this.region.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') this.close();
    });
  }

  get openId(): string | null {
    return this.depositId;
  }

  async open(depositId: string): Promise<void> {
    const switching = this.depositId !== depositId;
    this.depositId = depositId;
    setText(this.heading, `Deposit ${depositId}`);
    this.region.hidden = false;
    this.onSelect(depositId);
    if (switching) {
      this.fields.replaceChildren();
      this.history.replaceChildren();
      this.messages.info('Loading…');
    }
    this.heading.focus();
    this.region.scrollIntoView({ block: 'nearest' });
    await this.refresh();
  }

  /** Reloads the open deposit (after a live status change). */
  async refresh(): Promise<void> {
    const id = this.depositId;
    if (!id) return;
    const seq = ++this.seq;
    try {
      const { deposit } = await gql<{ deposit: DepositDetail | null }>(DEPOSIT_QUERY, { id });
      if (seq !== this.seq || id !== this.depositId) return;
      if (!deposit) {
        this.messages.error(`Deposit ${id} was not found.`);
        return;
      }
      this.messages.clear();
      this.render(deposit);
    } catch (error) {
      if (seq === this.seq) this.messages.error(error);
    }
  }

  close(): void {
    const wasOpen = this.depositId;
    this.depositId = null;
    this.seq++;
    this.region.hidden = true;
    this.onSelect(null);
    if (wasOpen) {
      // Back to the row's Details button, so keyboard users keep their place.
      const row = document.querySelector(`tr[data-deposit-id="${CSS.escape(wasOpen)}"]`);
      row?.querySelector<HTMLButtonElement>('button')?.focus();
    }
  }

  reset(): void {
    this.depositId = null;
    this.seq++;
    this.region.hidden = true;
    this.fields.replaceChildren();
    this.history.replaceChildren();
    this.messages.clear();
  }

  private render(d: DepositDetail): void {
    const rows: [string, Node | string][] = [
      ['Deposit ID', d.depositId],
      ['Status', this.statusNode(d)],
      ['Amount (NGN)', d.amountNgn],
      ['Amount', d.amountAsset ? `${d.amountAsset} ${d.asset ?? ''}`.trim() : '—'],
      ['Chain', orDash(d.chain)],
      ['Transaction', this.txNode(d)],
      ['Onramp', d.onrampId],
      ['User', d.userEmail],
      ['Payer', payerText(d.payer)],
      ['Bank reference', d.bankReference],
      ['Payment reference', d.paymentReference],
      ['Rate ID', orDash(d.rateId)],
      ['Flag reason', orDash(d.flagReason)],
      ['Failure reason', orDash(d.failureReason)],
      ['Created', timeElement(d.createdAt)],
      ['Updated', timeElement(d.updatedAt)],
      ['Settled', timeElement(d.settledAt)],
    ];
    this.fields.replaceChildren(
      ...rows.map(([label, value]) => h('div', {}, h('dt', {}, label), h('dd', {}, value))),
    );
    const history = d.statusHistory ?? [];
    this.history.replaceChildren(
      ...(history.length
        ? history.map((change) =>
            h(
              'li',
              { 'data-event': change.event, title: change.event },
              `${change.status} at `,
              timeElement(change.at),
            ),
          )
        : [h('li', { class: 'muted' }, 'No status changes recorded.')]),
    );
  }

  private statusNode(d: DepositDetail): Node | string {
    const action = returnToPayerButton(
      d.depositId,
      d.status,
      this.messages,
      () => void this.refresh(),
    );
    const link = resolutionLinkAction(d.depositId, d.status, this.messages);
    return action ? h('span', {}, `${d.status} `, action, link ?? '') : d.status;
  }

  private txNode(d: DepositDetail): Node | string {
    if (!d.txHash) return '—';
    const url = explorerUrl(d.chain, d.txHash);
    return h(
      'span',
      { class: 'tx' },
      h('code', { class: 'mono', 'data-field': 'tx-hash' }, d.txHash),
      url
        ? h(
            'a',
            { href: url, target: '_blank', rel: 'noopener noreferrer' },
            `View on ${new URL(url).hostname}`,
          )
        : null,
    );
  }
}
