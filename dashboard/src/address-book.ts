// Address book section: the withdrawal addresses with their status and the time left before
// each may receive withdrawals, add and remove, and the require_address_book switch. It builds
// its own markup inside its <section> (the page only mounts it).

import { gql, serverNow } from './api.js';
import {
  ADD_WITHDRAWAL_ADDRESS_MUTATION,
  REMOVE_WITHDRAWAL_ADDRESS_MUTATION,
  UPDATE_MERCHANT_SETTINGS_MUTATION,
  WITHDRAWAL_ADDRESSES_QUERY,
} from './documents.js';
import { busy, byId, h, Messages, setText, syncRows } from './dom.js';
import { formatCountdown, orDash, timeElement } from './format.js';
import { PendingChangesList, requested, type PendingChange } from './pending-changes.js';

interface WithdrawalAddress {
  id: string;
  chain: string;
  address: string;
  label: string | null;
  status: 'PENDING' | 'ACTIVE' | 'DELETED';
  activeAt: string;
  createdAt: string;
}

interface AddressBookData {
  withdrawalAddresses: { totalCount: number; edges: Array<{ node: WithdrawalAddress }> };
  merchantSettings: { requireAddressBook: boolean; pendingChanges: PendingChange[] };
}

const CHAINS = ['BASE', 'ETHEREUM', 'POLYGON'] as const;

export class AddressBookSection {
  private readonly section = byId('address-book-section');
  private readonly required = h('input', { id: 'address-book-required', type: 'checkbox' });
  /** Turning the book off waits WITHDRAWAL_ADDRESS_DELAY_SECONDS (issue 32). */
  private readonly pending = new PendingChangesList(['require_address_book']);
  private readonly chain = h(
    'select',
    { id: 'address-chain', name: 'chain' },
    ...CHAINS.map((c) => h('option', { value: c }, c)),
  );
  private readonly address = h('input', {
    id: 'address-value',
    name: 'address',
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: '0x…',
    required: true,
  });
  private readonly label = h('input', { id: 'address-label', name: 'label', maxlength: 100 });
  private readonly addButton = h('button', { type: 'submit', class: 'btn btn-primary' }, 'Add');
  private readonly tbody = h('tbody');
  private readonly empty = h('p', { class: 'empty muted', hidden: true }, 'No addresses yet.');
  private readonly messages: Messages;
  private entries: WithdrawalAddress[] = [];
  private ticker: ReturnType<typeof setInterval> | null = null;

  constructor() {
    const status = h('p', { id: 'address-book-status', class: 'msg', role: 'status' });
    const alert = h('p', { id: 'address-book-alert', class: 'msg msg-error', role: 'alert' });
    alert.hidden = true;
    this.messages = new Messages(status, alert);
    const form = h(
      'form',
      { id: 'address-form', class: 'inline-form', 'aria-label': 'Add a withdrawal address' },
      field('address-chain', 'Chain', this.chain),
      field('address-value', 'Address', this.address, true),
      field('address-label', 'Label (optional)', this.label),
      this.addButton,
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void busy(this.addButton, () => this.add());
    });
    this.required.addEventListener('change', () => void this.saveRequired());
    this.section.append(
      h('div', { class: 'card-head' }, h('h2', { id: 'address-book-heading' }, 'Address book')),
      h(
        'label',
        { class: 'checkbox', for: 'address-book-required' },
        this.required,
        ' Withdraw only to ACTIVE addresses of this book (require_address_book)',
      ),
      this.pending.element,
      form,
      status,
      alert,
      h(
        'div',
        { class: 'table-wrap', tabindex: 0, role: 'group', 'aria-label': 'Addresses table' },
        h(
          'table',
          { id: 'address-book-table' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ...['Chain', 'Address', 'Label', 'Status', 'Active in', 'Added'].map((t) =>
                h('th', { scope: 'col' }, t),
              ),
              h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
            ),
          ),
          this.tbody,
        ),
      ),
      this.empty,
    );
  }

  async load(): Promise<void> {
    try {
      const data = await gql<AddressBookData>(WITHDRAWAL_ADDRESSES_QUERY, { first: 100 });
      this.showRequired(data.merchantSettings);
      this.entries = data.withdrawalAddresses.edges.map((e) => e.node);
      this.render();
    } catch (error) {
      this.messages.error(error);
    }
  }

  reset(): void {
    if (this.ticker !== null) clearInterval(this.ticker);
    this.ticker = null;
    this.entries = [];
    this.render();
    this.messages.clear();
  }

  private async add(): Promise<void> {
    try {
      const entry = await gql<{ addWithdrawalAddress: WithdrawalAddress }>(
        ADD_WITHDRAWAL_ADDRESS_MUTATION,
        {
          input: {
            chain: this.chain.value,
            address: this.address.value.trim(),
            label: this.label.value.trim() || null,
          },
        },
      );
      this.messages.info(
        `Added; usable from ${new Date(entry.addWithdrawalAddress.activeAt).toLocaleString()}.`,
      );
      this.address.value = '';
      this.label.value = '';
      await this.load();
    } catch (error) {
      this.messages.error(error);
    }
  }

  private async remove(entry: WithdrawalAddress, button: HTMLButtonElement): Promise<void> {
    await busy(button, async () => {
      try {
        await gql(REMOVE_WITHDRAWAL_ADDRESS_MUTATION, { id: entry.id });
        this.messages.info(`Removed ${entry.address}.`);
        await this.load();
      } catch (error) {
        this.messages.error(error);
      }
    });
  }

  private async saveRequired(): Promise<void> {
    const wanted = this.required.checked;
    this.required.disabled = true;
    try {
      const saved = await gql<{ updateMerchantSettings: AddressBookData['merchantSettings'] }>(
        UPDATE_MERCHANT_SETTINGS_MUTATION,
        { input: { requireAddressBook: wanted } },
      );
      const settings = saved.updateMerchantSettings;
      this.showRequired(settings);
      const waiting = settings.pendingChanges.find((c) => c.field === 'require_address_book');
      this.messages.info(
        waiting
          ? `Turning the address book off takes effect at ${new Date(waiting.effectiveAt).toLocaleString()}; until then withdrawals go only to ACTIVE addresses.`
          : this.required.checked
            ? 'Withdrawals now go only to ACTIVE addresses of the book.'
            : 'Withdrawals may go to any address.',
      );
    } catch (error) {
      this.required.checked = !wanted;
      this.messages.error(error);
    } finally {
      this.required.disabled = false;
    }
  }

  /** The switch shows what was asked for; the list under it, when a pending change applies. */
  private showRequired(settings: AddressBookData['merchantSettings']): void {
    this.required.checked = requested(
      settings.pendingChanges,
      'require_address_book',
      settings.requireAddressBook,
    );
    this.pending.show(settings.pendingChanges);
  }

  /** Rows, and a once-a-second tick for the countdowns while any entry is PENDING. */
  private render(): void {
    syncRows(
      this.tbody,
      this.entries,
      (e) => e.id,
      'data-address-id',
      (e) => this.row(e),
      (row, e) => this.updateRow(row, e),
    );
    this.empty.hidden = this.entries.length > 0;
    const pending = this.entries.some((e) => Date.parse(e.activeAt) > serverNow());
    if (pending && this.ticker === null) this.ticker = setInterval(() => this.tick(), 1_000);
    if (!pending && this.ticker !== null) {
      clearInterval(this.ticker);
      this.ticker = null;
    }
  }

  private tick(): void {
    for (const row of Array.from(this.tbody.rows)) {
      const entry = this.entries.find((e) => e.id === row.getAttribute('data-address-id'));
      if (entry) this.updateRow(row, entry);
    }
    if (!this.entries.some((e) => Date.parse(e.activeAt) > serverNow())) this.render();
  }

  private row(entry: WithdrawalAddress): HTMLTableRowElement {
    const remove = h('button', { type: 'button', class: 'btn btn-small' }, 'Remove');
    remove.addEventListener('click', () => void this.remove(entry, remove));
    return h(
      'tr',
      {},
      h('td', {}, entry.chain),
      h('td', {}, h('code', {}, entry.address)),
      h('td', {}, orDash(entry.label)),
      h('td', { 'data-col': 'status' }),
      h('td', { 'data-col': 'countdown' }),
      h('td', {}, timeElement(entry.createdAt)),
      h('td', {}, remove),
    );
  }

  /** Status from the (server-corrected) clock, as the API computes it. */
  private updateRow(row: HTMLTableRowElement, entry: WithdrawalAddress): void {
    const left = (Date.parse(entry.activeAt) - serverNow()) / 1000;
    const status = left > 0 ? 'PENDING' : 'ACTIVE';
    setText(row.querySelector('[data-col="status"]')!, status);
    setText(row.querySelector('[data-col="countdown"]')!, left > 0 ? formatCountdown(left) : '—');
  }
}

function field(id: string, text: string, input: HTMLElement, grow = false): HTMLDivElement {
  return h('div', { class: grow ? 'field grow' : 'field' }, h('label', { for: id }, text), input);
}
