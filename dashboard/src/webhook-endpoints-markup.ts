// The webhook endpoints section's elements, built here so index.html only holds its mount point.

import { h } from './dom.js';
import { EVENT_NAMES } from './vocabulary.js';

function table(id: string, heads: string[]): HTMLElement {
  return h(
    'div',
    { class: 'table-wrap', tabindex: '0', role: 'group', 'aria-label': `${id}, scrollable` },
    h(
      'table',
      { id },
      h('thead', {}, h('tr', {}, ...heads.map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody'),
    ),
  );
}

export function endpointsMarkup(): HTMLElement[] {
  const events = ['*', ...EVENT_NAMES].map((name) =>
    h(
      'label',
      { class: 'check' },
      h('input', { type: 'checkbox', name: 'event', value: name }),
      name === '*' ? ' All events (*)' : ` ${name}`,
    ),
  );
  return [
    h(
      'div',
      { class: 'card-head' },
      h('h2', { id: 'webhook-endpoints-heading' }, 'Webhook endpoints'),
    ),
    h(
      'form',
      { id: 'webhook-endpoint-form', class: 'inline-form', 'aria-label': 'New webhook endpoint' },
      h(
        'div',
        { class: 'field grow' },
        h('label', { for: 'webhook-endpoint-url' }, 'Endpoint URL'),
        h('input', { id: 'webhook-endpoint-url', name: 'url', type: 'url', required: true }),
      ),
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'webhook-endpoint-description' }, 'Description'),
        h('input', { id: 'webhook-endpoint-description', name: 'description', type: 'text' }),
      ),
      h('fieldset', { class: 'events' }, h('legend', {}, 'Events'), ...events),
      h('button', { type: 'submit', class: 'btn btn-primary' }, 'Add endpoint'),
    ),
    h(
      'div',
      { class: 'secret-row' },
      h('span', { class: 'secret-label' }, 'New signing secret'),
      h('code', { id: 'webhook-endpoint-secret', class: 'secret' }, '—'),
    ),
    h('p', { id: 'webhook-endpoints-status', class: 'msg', role: 'status' }),
    h('p', { id: 'webhook-endpoints-alert', class: 'msg msg-error', role: 'alert', hidden: true }),
    table('webhook-endpoints-table', ['URL', 'Events', 'Status', 'Actions']),
    h('p', { id: 'webhook-endpoints-empty', class: 'empty muted' }, 'No endpoints yet.'),
    h('h3', { id: 'webhook-endpoint-log-heading' }, 'Deliveries'),
    table('webhook-endpoint-deliveries', [
      'Event',
      'Status',
      'Attempts',
      'Last status code',
      'Next attempt',
      'Created',
      '',
    ]),
    h('p', { id: 'webhook-endpoint-deliveries-empty', class: 'empty muted' }, 'No deliveries.'),
  ];
}
