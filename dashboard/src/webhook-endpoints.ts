// Webhook endpoints section: every endpoint of the merchant (up to 10) with its events and
// status; a form to add one (events chosen from the list; its secret shown once created);
// per endpoint Enable/Disable, Rotate secret, Send test and its own delivery log.

import { gql } from './api.js';
import {
  CREATE_WEBHOOK_ENDPOINT_MUTATION,
  ENDPOINT_DELIVERIES_QUERY,
  REPLAY_TO_ENDPOINT_MUTATION,
  ROTATE_WEBHOOK_ENDPOINT_SECRET_MUTATION,
  TEST_WEBHOOK_ENDPOINT_MUTATION,
  UPDATE_WEBHOOK_ENDPOINT_MUTATION,
  WEBHOOK_ENDPOINTS_QUERY,
} from './documents.js';
import { busy, byId, h, Messages, setText, syncRows } from './dom.js';
import { DeliveriesTable, type Delivery } from './webhook-deliveries-table.js';
import { endpointsMarkup } from './webhook-endpoints-markup.js';
import { EVENT_NAMES } from './vocabulary.js';

interface Endpoint {
  id: string;
  url: string;
  enabledEvents: string[];
  description: string | null;
  status: 'ENABLED' | 'DISABLED';
  createdAt: string;
  secret?: string;
}

export class WebhookEndpointsSection {
  private readonly root = byId('webhook-endpoints-section');
  private readonly messages: Messages;
  private readonly form: HTMLFormElement;
  private readonly tbody: HTMLTableSectionElement;
  private readonly empty: HTMLElement;
  private readonly secret: HTMLElement;
  private readonly logHeading: HTMLElement;
  private readonly log: DeliveriesTable;
  private endpoints: Endpoint[] = [];
  private selected: string | null = null;

  constructor() {
    this.root.replaceChildren(...endpointsMarkup());
    this.messages = Messages.of('webhook-endpoints');
    this.form = byId<HTMLFormElement>('webhook-endpoint-form');
    this.tbody = byId<HTMLTableElement>('webhook-endpoints-table').tBodies[0];
    this.empty = byId('webhook-endpoints-empty');
    this.secret = byId('webhook-endpoint-secret');
    this.logHeading = byId('webhook-endpoint-log-heading');
    this.log = new DeliveriesTable(
      byId<HTMLTableElement>('webhook-endpoint-deliveries').tBodies[0],
      byId('webhook-endpoint-deliveries-empty'),
      (delivery, button) => this.replay(delivery, button),
    );
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      const button = this.form.querySelector<HTMLButtonElement>('button[type="submit"]');
      if (button) void busy(button, () => this.create());
    });
  }

  async load(): Promise<void> {
    try {
      const data = await gql<{ webhookEndpoints: { edges: { node: Endpoint }[] } }>(
        WEBHOOK_ENDPOINTS_QUERY,
      );
      this.endpoints = data.webhookEndpoints.edges.map((e) => e.node);
      this.render();
    } catch (error) {
      this.messages.error(error);
    }
  }

  reset(): void {
    this.endpoints = [];
    this.selected = null;
    this.form.reset();
    setText(this.secret, '—');
    this.render();
    this.log.render([]);
    this.messages.clear();
  }

  private async create(): Promise<void> {
    const data = new FormData(this.form);
    const chosen = data.getAll('event').map(String);
    const enabledEvents = chosen.includes('*') || chosen.length === 0 ? ['*'] : chosen;
    try {
      const { createWebhookEndpoint: created } = await gql<{ createWebhookEndpoint: Endpoint }>(
        CREATE_WEBHOOK_ENDPOINT_MUTATION,
        {
          input: {
            url: String(data.get('url') ?? '').trim(),
            enabledEvents,
            description: String(data.get('description') ?? '').trim() || null,
          },
        },
      );
      this.showSecret(created);
      this.form.reset();
      this.messages.info(`Endpoint ${created.url} added (${enabledEvents.join(', ')}).`);
      await this.load();
    } catch (error) {
      this.messages.error(error);
    }
  }

  private async act(endpoint: Endpoint, action: string, button: HTMLButtonElement): Promise<void> {
    await busy(button, async () => {
      try {
        if (action === 'toggle') {
          const status = endpoint.status === 'ENABLED' ? 'DISABLED' : 'ENABLED';
          await gql(UPDATE_WEBHOOK_ENDPOINT_MUTATION, { id: endpoint.id, input: { status } });
          this.messages.info(`Endpoint ${endpoint.url} ${status.toLowerCase()}.`);
        } else if (action === 'rotate') {
          const { rotateWebhookEndpointSecret: rotated } = await gql<{
            rotateWebhookEndpointSecret: Endpoint;
          }>(ROTATE_WEBHOOK_ENDPOINT_SECRET_MUTATION, { id: endpoint.id });
          this.showSecret(rotated);
          this.messages.info('Secret rotated; the previous one keeps signing (too) for 24 hours.');
        } else if (action === 'test') {
          const { testWebhookEndpoint: sent } = await gql<{ testWebhookEndpoint: Delivery }>(
            TEST_WEBHOOK_ENDPOINT_MUTATION,
            { id: endpoint.id },
          );
          this.messages.info(`Test event sent to ${endpoint.url} (delivery ${sent.id}).`);
        }
        this.selected = endpoint.id;
        await Promise.all([this.load(), this.loadLog()]);
      } catch (error) {
        this.messages.error(error);
      }
    });
  }

  private async loadLog(): Promise<void> {
    const endpoint = this.endpoints.find((e) => e.id === this.selected);
    setText(this.logHeading, endpoint ? `Deliveries to ${endpoint.url}` : 'Deliveries');
    if (!endpoint) return this.log.render([]);
    const data = await gql<{ webhookDeliveries: { edges: { node: Delivery }[] } }>(
      ENDPOINT_DELIVERIES_QUERY,
      { first: 20, endpointId: endpoint.id },
    );
    this.log.render(data.webhookDeliveries.edges.map((e) => e.node));
  }

  private async replay(delivery: Delivery, button: HTMLButtonElement): Promise<void> {
    await busy(button, async () => {
      try {
        await gql(REPLAY_TO_ENDPOINT_MUTATION, {
          eventId: delivery.eventId,
          endpointId: this.selected,
        });
        this.messages.info(`Replayed ${delivery.event} (${delivery.eventId}).`);
        await this.loadLog();
      } catch (error) {
        this.messages.error(error);
      }
    });
  }

  private showSecret(endpoint: Endpoint): void {
    setText(this.secret, endpoint.secret ? `${endpoint.url}: ${endpoint.secret}` : '—');
  }

  private render(): void {
    syncRows(
      this.tbody,
      this.endpoints,
      (e) => e.id,
      'data-endpoint-id',
      (e) => {
        const row = h('tr', {}, h('td', { class: 'mono' }), h('td'), h('td'), h('td'));
        const buttons = (['toggle', 'rotate', 'test', 'deliveries'] as const).map((action) => {
          const button = h('button', { type: 'button', class: 'btn btn-small' });
          button.dataset.action = action;
          button.addEventListener('click', () => {
            const current = this.endpoints.find((x) => x.id === row.dataset.endpointId) ?? e;
            if (action !== 'deliveries') return void this.act(current, action, button);
            this.selected = current.id;
            void busy(button, () => this.loadLog().catch((err) => this.messages.error(err)));
          });
          return button;
        });
        row.cells[3].replaceChildren(h('div', { class: 'button-row' }, ...buttons));
        this.fill(row, e);
        return row;
      },
      (row, e) => this.fill(row, e),
    );
    this.empty.hidden = this.endpoints.length > 0;
  }

  private fill(row: HTMLTableRowElement, e: Endpoint): void {
    setText(row.cells[0], e.url);
    row.cells[0].title = e.description ?? e.id;
    setText(
      row.cells[1],
      e.enabledEvents.includes('*')
        ? `All events (${EVENT_NAMES.length})`
        : e.enabledEvents.join(', '),
    );
    setText(row.cells[2], e.status === 'ENABLED' ? 'Enabled' : 'Disabled');
    const labels: Record<string, string> = {
      toggle: e.status === 'ENABLED' ? 'Disable' : 'Enable',
      rotate: 'Rotate secret',
      test: 'Send test',
      deliveries: 'Deliveries',
    };
    for (const button of Array.from(row.querySelectorAll<HTMLButtonElement>('button'))) {
      setText(button, labels[button.dataset.action ?? ''] ?? '');
    }
  }
}
