// API keys panel: the merchant's keys (never their secrets), a form to create one (the secret is
// shown once, with a copy button), and Revoke per key. Shown only to sessions whose key has
// `all`: no other key may manage keys.

import { gql } from './api.js';
import { API_KEYS_QUERY, CREATE_API_KEY_MUTATION, REVOKE_API_KEY_MUTATION } from './documents.js';
import { busy, byId, h, Messages, setText, syncRows } from './dom.js';
import { formatTime } from './format.js';
import { SCOPES } from './vocabulary.js';

interface ApiKey {
  id: string;
  name: string | null;
  scopes: string[];
  allowedIps: string[] | null;
  keyPrefix: string;
  createdAt: string;
  revokedAt: string | null;
}

export class ApiKeysSection {
  private readonly section = byId('api-keys-section');
  private readonly status = h('p', { id: 'api-keys-status', class: 'msg', role: 'status' });
  private readonly alert = h('p', {
    id: 'api-keys-alert',
    class: 'msg msg-error',
    role: 'alert',
    hidden: true,
  });
  private readonly messages = new Messages(this.status, this.alert);
  private readonly name = h('input', {
    id: 'api-key-name',
    name: 'name',
    maxlength: 100,
    autocomplete: 'off',
    required: true,
  });
  private readonly full = h('input', { id: 'api-key-all', type: 'checkbox', name: 'all' });
  private readonly boxes = SCOPES.map((scope) =>
    h('input', { type: 'checkbox', name: 'scope', value: scope, 'data-scope': scope }),
  );
  private readonly ips = h('input', {
    id: 'api-key-ips',
    name: 'allowed_ips',
    placeholder: 'Any address (or e.g. 203.0.113.0/24, 2001:db8::/32)',
    autocomplete: 'off',
  });
  private readonly created = h('div', { id: 'api-key-created', class: 'secret-row', hidden: true });
  private readonly secret = h('code', { id: 'api-key-secret', class: 'secret' });
  private readonly copy = h('button', { type: 'button', class: 'btn btn-small' }, 'Copy');
  private readonly tbody = h('tbody');
  private keys: ApiKey[] = [];
  private loadSeq = 0;

  constructor() {
    const form = h(
      'form',
      { id: 'api-key-form', class: 'stack', 'aria-label': 'New API key' },
      h(
        'div',
        { class: 'inline-form' },
        h('div', { class: 'field grow' }, h('label', { for: 'api-key-name' }, 'Name'), this.name),
        h(
          'div',
          { class: 'field grow' },
          h('label', { for: 'api-key-ips' }, 'Allowed IPs'),
          this.ips,
        ),
      ),
      h(
        'fieldset',
        { class: 'checks fields' },
        h('legend', {}, 'Scopes'),
        h('label', { class: 'check' }, this.full, 'all (a secret key)'),
        ...this.boxes.map((box) => h('label', { class: 'check' }, box, box.value)),
      ),
      h(
        'div',
        { class: 'button-row' },
        h('button', { type: 'submit', class: 'btn btn-primary' }, 'Create key'),
      ),
    );
    this.created.append(
      h('span', { class: 'secret-label' }, 'New key (shown once)'),
      this.secret,
      h('div', { class: 'button-row' }, this.copy),
    );
    const table = h(
      'table',
      { id: 'api-keys-table' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...['Name', 'Key', 'Scopes', 'Allowed IPs', 'Created', 'Status'].map((title) =>
            h('th', { scope: 'col' }, title),
          ),
          h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
        ),
      ),
      this.tbody,
    );
    this.section.replaceChildren(
      h('div', { class: 'card-head' }, h('h2', { id: 'api-keys-heading' }, 'API keys')),
      form,
      this.created,
      this.status,
      this.alert,
      h(
        'div',
        { class: 'table-wrap', tabindex: 0, role: 'group', 'aria-label': 'API keys' },
        table,
      ),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const button = form.querySelector<HTMLButtonElement>('button[type="submit"]');
      if (button) void busy(button, () => this.create());
    });
    // `all` stands alone: choosing it clears and disables the restricted scopes.
    this.full.addEventListener('change', () => {
      for (const box of this.boxes) {
        box.disabled = this.full.checked;
        if (this.full.checked) box.checked = false;
      }
    });
    this.copy.addEventListener('click', () => void this.copySecret());
  }

  /** Shown only when the session's key may manage keys. */
  show(visible: boolean): void {
    this.section.hidden = !visible;
    if (visible) void this.load();
  }

  async load(): Promise<void> {
    const seq = ++this.loadSeq;
    try {
      const data = await gql<{ apiKeys: { edges: { node: ApiKey }[] } }>(API_KEYS_QUERY, {
        first: 100,
      });
      if (seq !== this.loadSeq) return;
      this.keys = data.apiKeys.edges.map((edge) => edge.node);
      this.render();
    } catch (error) {
      this.messages.error(error);
    }
  }

  reset(): void {
    this.loadSeq++;
    this.keys = [];
    this.render();
    this.created.hidden = true;
    setText(this.secret, '');
    this.messages.clear();
  }

  private async create(): Promise<void> {
    const scopes = this.full.checked
      ? ['all']
      : this.boxes.filter((box) => box.checked).map((box) => box.value);
    if (scopes.length === 0) {
      this.messages.error('Choose at least one scope.');
      return;
    }
    const ips = this.ips.value
      .split(/[\s,]+/)
      .map((ip) => ip.trim())
      .filter(Boolean);
    try {
      const { createApiKey } = await gql<{ createApiKey: ApiKey & { secret: string } }>(
        CREATE_API_KEY_MUTATION,
        { input: { name: this.name.value, scopes, allowedIps: ips.length > 0 ? ips : null } },
      );
      setText(this.secret, createApiKey.secret);
      this.created.hidden = false;
      this.messages.info(
        `Key ${createApiKey.name ?? ''} created. Copy it now: it is not shown again.`,
      );
      this.name.value = '';
      this.ips.value = '';
      await this.load();
    } catch (error) {
      this.messages.error(error);
    }
  }

  private async copySecret(): Promise<void> {
    const text = this.secret.textContent ?? '';
    try {
      await navigator.clipboard.writeText(text);
      this.messages.info('Key copied to the clipboard.');
    } catch {
      // No clipboard (an insecure context): select the key so the user can copy it.
      getSelection()?.selectAllChildren(this.secret);
      this.messages.info('Key selected: copy it with your keyboard.');
    }
  }

  private async revoke(key: ApiKey, button: HTMLButtonElement): Promise<void> {
    if (!confirm(`Revoke ${key.name ?? key.keyPrefix}? It stops working at once.`)) return;
    await busy(button, async () => {
      try {
        await gql(REVOKE_API_KEY_MUTATION, { id: key.id });
        this.messages.info(`Key ${key.name ?? key.keyPrefix} revoked.`);
        await this.load();
      } catch (error) {
        this.messages.error(error);
      }
    });
  }

  private render(): void {
    syncRows(
      this.tbody,
      this.keys,
      (key) => `${key.id}:${key.revokedAt ?? ''}`,
      'data-key-id',
      (key) => this.row(key),
      () => undefined,
    );
  }

  private row(key: ApiKey): HTMLTableRowElement {
    const revoke = h('button', { type: 'button', class: 'btn btn-small' }, 'Revoke');
    revoke.addEventListener('click', () => void this.revoke(key, revoke));
    return h(
      'tr',
      {},
      h('td', {}, key.name ?? '(issued by the operator)'),
      h('td', {}, h('code', {}, `${key.keyPrefix}…`)),
      h('td', {}, key.scopes.join(', ')),
      h('td', {}, key.allowedIps?.join(', ') ?? 'Any'),
      h('td', {}, formatTime(key.createdAt)),
      h('td', {}, key.revokedAt ? `Revoked ${formatTime(key.revokedAt)}` : 'Active'),
      h('td', {}, key.revokedAt ? null : revoke),
    );
  }
}
