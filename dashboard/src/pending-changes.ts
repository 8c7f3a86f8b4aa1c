// Settings changes waiting for their delay (issue 32): a widening (the address book off, a
// raised tolerance, a payer allowed to settle) applies WITHDRAWAL_ADDRESS_DELAY_SECONDS after
// the request. A panel's inputs show what the merchant asked for (the pending value), and the
// list below says when it applies; putting an input back to the value that applies cancels it.

import { h } from './dom.js';
import { timeElement } from './format.js';

export interface PendingChange {
  field: string;
  value: unknown;
  effectiveAt: string;
}

/** The value asked for at `field`: the pending one, else `current` (what applies). */
export function requested<T>(changes: readonly PendingChange[], field: string, current: T): T {
  const change = changes.find((c) => c.field === field);
  return change ? (change.value as T) : current;
}

/** A list of the changes whose field starts with one of `prefixes`; hidden when none. */
export class PendingChangesList {
  readonly element = h('ul', { class: 'pending-changes muted', 'aria-label': 'Pending changes' });

  constructor(private readonly prefixes: readonly string[]) {
    this.element.hidden = true;
  }

  show(changes: readonly PendingChange[]): void {
    const mine = changes.filter((c) => this.prefixes.some((p) => c.field.startsWith(p)));
    this.element.replaceChildren(
      ...mine.map((c) =>
        h(
          'li',
          { 'data-field': c.field },
          h('code', {}, c.field),
          ` becomes ${JSON.stringify(c.value)} at `,
          timeElement(c.effectiveAt),
          ' (a widening waits; setting it back cancels it)',
        ),
      ),
    );
    this.element.hidden = mine.length === 0;
  }
}
