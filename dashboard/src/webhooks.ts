// Webhooks section: the endpoint URL, its signing secret (masked until revealed; rotation), and
// the delivery log with a Replay button per delivery. These act on the merchant's first endpoint;
// webhook-endpoints.ts manages all of them.

import { gql } from './api.js';
import {
  REPLAY_WEBHOOK_EVENT_MUTATION,
  ROTATE_WEBHOOK_SECRET_MUTATION,
  SET_WEBHOOK_ENDPOINT_MUTATION,
  WEBHOOK_DELIVERIES_QUERY,
} from './documents.js';
import { busy, byId, Messages, setText } from './dom.js';
import { DeliveriesTable, type Delivery } from './webhook-deliveries-table.js';
import type { WebhookEndpoint } from './balance.js';

const PAGE_SIZE = 20;
const MASK = '••••••••••••••••';

export class WebhooksSection {
  private readonly messages = Messages.of('webhooks');
  private readonly form = byId<HTMLFormElement>('webhook-form');
  private readonly url = byId<HTMLInputElement>('webhook-url');
  private readonly secret = byId('webhook-secret');
  private readonly state = byId('webhook-state');
  private readonly reveal = byId<HTMLButtonElement>('webhook-reveal');
  private readonly hide = byId<HTMLButtonElement>('webhook-hide');
  private readonly rotate = byId<HTMLButtonElement>('webhook-rotate');
  private readonly refreshButton = byId<HTMLButtonElement>('deliveries-refresh');
  private readonly table = new DeliveriesTable(
    byId<HTMLTableElement>('deliveries-table').tBodies[0],
    byId('deliveries-empty'),
    (delivery, button) => this.replay(delivery, button),
  );
  private endpoint: WebhookEndpoint | null = null;
  private revealed = false;
  private deliveries: Delivery[] = [];
  private loadSeq = 0;

  constructor() {
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      const button = this.form.querySelector<HTMLButtonElement>('button[type="submit"]');
      if (button) void busy(button, () => this.save());
    });
    this.reveal.addEventListener('click', () => {
      // Idempotent (stays visible): revealing again after a rotation shows the new secret.
      this.revealed = true;
      this.renderSecret();
    });
    this.hide.addEventListener('click', () => {
      this.revealed = false;
      this.renderSecret();
      this.reveal.focus();
    });
    this.rotate.addEventListener('click', () => void busy(this.rotate, () => this.rotateSecret()));
    this.refreshButton.addEventListener(
      'click',
      () => void busy(this.refreshButton, () => this.loadDeliveries(true)),
    );
  }

  /** The endpoint as read with the merchant (null until one is set). */
  setEndpoint(endpoint: WebhookEndpoint | null, fillInput = false): void {
    const first = this.endpoint === null;
    this.endpoint = endpoint;
    // Do not overwrite what the user is typing; fill the field on first load.
    if (endpoint && (fillInput || first) && document.activeElement !== this.url) {
      this.url.value = endpoint.url;
    }
    if (!endpoint) setText(this.state, 'Not configured');
    else setText(this.state, endpoint.enabled ? 'Enabled' : 'Disabled (410 Gone)');
    this.state.classList.toggle('badge-live', !!endpoint?.enabled);
    this.reveal.disabled = !endpoint;
    this.rotate.disabled = !endpoint;
    this.renderSecret();
  }

  async loadDeliveries(announce = false): Promise<void> {
    const seq = ++this.loadSeq;
    try {
      const data = await gql<{ webhookDeliveries: { edges: { node: Delivery }[] } }>(
        WEBHOOK_DELIVERIES_QUERY,
        { first: PAGE_SIZE },
      );
      if (seq !== this.loadSeq) return;
      this.deliveries = data.webhookDeliveries.edges.map((edge) => edge.node);
      this.renderDeliveries();
      if (announce) this.messages.info(`Deliveries refreshed (${this.deliveries.length} shown).`);
    } catch (error) {
      this.messages.error(error);
    }
  }

  reset(): void {
    this.endpoint = null;
    this.revealed = false;
    this.deliveries = [];
    this.loadSeq++;
    this.url.value = '';
    this.setEndpoint(null);
    this.renderDeliveries();
    this.messages.clear();
  }

  private async save(): Promise<void> {
    const url = this.url.value.trim();
    if (!url) {
      this.messages.error('Enter the webhook URL.');
      this.url.focus();
      return;
    }
    try {
      const { setWebhookEndpoint } = await gql<{ setWebhookEndpoint: WebhookEndpoint }>(
        SET_WEBHOOK_ENDPOINT_MUTATION,
        { url },
      );
      this.setEndpoint(setWebhookEndpoint, true);
      this.messages.info(`Webhook endpoint saved: ${setWebhookEndpoint.url}`);
    } catch (error) {
      this.messages.error(error);
    }
  }

  private async rotateSecret(): Promise<void> {
    try {
      const { rotateWebhookSecret } = await gql<{ rotateWebhookSecret: WebhookEndpoint }>(
        ROTATE_WEBHOOK_SECRET_MUTATION,
      );
      this.setEndpoint(rotateWebhookSecret);
      this.messages.info(
        'Signing secret rotated. The previous secret keeps signing (too) for 24 hours.',
      );
    } catch (error) {
      this.messages.error(error);
    }
  }

  private async replay(delivery: Delivery, button: HTMLButtonElement): Promise<void> {
    await busy(button, async () => {
      try {
        const { replayWebhookEvent } = await gql<{ replayWebhookEvent: Delivery }>(
          REPLAY_WEBHOOK_EVENT_MUTATION,
          {
            eventId: delivery.eventId,
          },
        );
        this.deliveries = [
          replayWebhookEvent,
          ...this.deliveries.filter((d) => d.id !== replayWebhookEvent.id),
        ];
        this.renderDeliveries();
        this.messages.info(
          `Replayed ${delivery.event} (${delivery.eventId}) as delivery ${replayWebhookEvent.id}.`,
        );
      } catch (error) {
        this.messages.error(error);
      }
    });
  }

  private renderSecret(): void {
    const secret = this.endpoint?.secret;
    const show = this.revealed && !!secret;
    // The secret is only in the DOM while revealed.
    setText(this.secret, secret ? (show ? secret : MASK) : '—');
    this.secret.dataset.revealed = String(show);
    this.hide.hidden = !show;
  }

  private renderDeliveries(): void {
    this.table.render(this.deliveries);
  }
}
