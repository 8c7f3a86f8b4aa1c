// Allowed origins panel: the browser origins whose pages may call the API with an onramp's
// client secret (merchant settings, issue 32; docs/api.md "Browsers (CORS)"). One origin per
// line; the server checks each (https://host[:port]) and names the one it refuses.

import { gql } from './api.js';
import { ALLOWED_ORIGINS_QUERY, UPDATE_ALLOWED_ORIGINS_MUTATION } from './documents.js';
import { busy, byId, h, Messages } from './dom.js';

interface Settings {
  allowedOrigins: string[];
}

export class AllowedOriginsSection {
  private readonly section = byId('allowed-origins-section');
  private readonly list = h('textarea', {
    id: 'allowed-origins-input',
    name: 'allowed-origins',
    rows: 4,
    spellcheck: 'false',
    autocomplete: 'off',
    placeholder: 'https://shop.example.com',
  });
  private readonly save = h('button', { type: 'submit', class: 'btn btn-primary' }, 'Save origins');
  private readonly messages: Messages;

  constructor() {
    const status = h('p', { id: 'allowed-origins-status', class: 'msg', role: 'status' });
    const alert = h('p', { id: 'allowed-origins-alert', class: 'msg msg-error', role: 'alert' });
    alert.hidden = true;
    this.messages = new Messages(status, alert);
    // Until the saved list has loaded, nothing can be typed or saved: the load would replace
    // what was typed, and a save would send that half-typed list in place of the saved one.
    this.setEditable(false);
    const form = h(
      'form',
      { id: 'allowed-origins-form', class: 'stack', 'aria-label': 'Allowed origins' },
      h(
        'p',
        { class: 'muted' },
        'Pages at these origins may call the API with an onramp client secret (never a secret ' +
          'key). One per line, https://host[:port]; at most 20. The sandbox also allows ' +
          'http://localhost on any port.',
      ),
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'allowed-origins-input' }, 'Origins'),
        this.list,
      ),
      this.save,
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void busy(this.save, () => this.store());
    });
    this.section.append(
      h(
        'div',
        { class: 'card-head' },
        h('h2', { id: 'allowed-origins-heading' }, 'Allowed origins'),
      ),
      form,
      status,
      alert,
    );
  }

  async load(): Promise<void> {
    try {
      const data = await gql<{ merchantSettings: Settings }>(ALLOWED_ORIGINS_QUERY, {});
      this.show(data.merchantSettings);
      this.setEditable(true);
    } catch (error) {
      this.messages.error(error);
    }
  }

  reset(): void {
    this.list.value = '';
    this.setEditable(false);
    this.messages.clear();
  }

  private setEditable(editable: boolean): void {
    this.list.disabled = !editable;
    this.save.disabled = !editable;
  }

  private show(settings: Settings): void {
    this.list.value = settings.allowedOrigins.join('\n');
  }

  private async store(): Promise<void> {
    const origins = this.list.value
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
    try {
      const saved = await gql<{ updateMerchantSettings: Settings }>(
        UPDATE_ALLOWED_ORIGINS_MUTATION,
        { input: { allowedOrigins: origins } },
      );
      this.show(saved.updateMerchantSettings);
      this.messages.info('Allowed origins saved.');
    } catch (error) {
      this.messages.error(error);
    }
  }
}
