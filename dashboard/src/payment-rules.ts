// Payment rules panel: what happens to a transfer that is under or over an onramp's expected
// amount, or from another payer than expected (merchant settings, issue 22). It builds its own
// markup inside its <section> (the page only mounts it); the server validates every value.

import { gql } from './api.js';
import { PAYMENT_RULES_QUERY, UPDATE_PAYMENT_RULES_MUTATION } from './documents.js';
import { busy, byId, h, Messages } from './dom.js';
import { PendingChangesList, requested, type PendingChange } from './pending-changes.js';

type Action = 'ACCEPT' | 'FLAG' | 'RETURN';
interface AmountRule {
  toleranceNgn: string;
  toleranceBps: number;
  action: Action;
}
interface Rules {
  underpayment: AmountRule;
  overpayment: AmountRule;
  payerNameCheck: { enabled: boolean; action: Action };
  pendingChanges: PendingChange[];
}

/** The fields of `next` that differ from `shown`; undefined when none. */
function changed<T extends object>(shown: T | undefined, next: T): Partial<T> | undefined {
  const diff = Object.fromEntries(
    Object.entries(next).filter(([k, v]) => shown?.[k as keyof T] !== v),
  ) as Partial<T>;
  return Object.keys(diff).length > 0 ? diff : undefined;
}

const ACTION_LABELS: Record<Action, string> = {
  ACCEPT: 'Accept',
  FLAG: 'Flag for review',
  RETURN: 'Return to payer',
};

const select = (id: string, actions: Action[]) =>
  h('select', { id, name: id }, ...actions.map((a) => h('option', { value: a }, ACTION_LABELS[a])));

/** One amount rule's three inputs. */
class AmountRuleFields {
  readonly ngn: HTMLInputElement;
  readonly bps: HTMLInputElement;
  readonly action: HTMLSelectElement;

  constructor(readonly prefix: string) {
    this.ngn = h('input', { id: `${prefix}-ngn`, inputmode: 'decimal', autocomplete: 'off' });
    this.bps = h('input', { id: `${prefix}-bps`, type: 'number', min: 0, max: 10000, step: 1 });
    this.action = select(`${prefix}-action`, ['ACCEPT', 'FLAG', 'RETURN']);
  }

  fieldset(legend: string): HTMLFieldSetElement {
    return h(
      'fieldset',
      { class: 'inline-form' },
      h('legend', {}, legend),
      field(this.ngn.id, 'Tolerance (NGN)', this.ngn),
      field(this.bps.id, 'or basis points', this.bps),
      field(this.action.id, 'Then', this.action),
    );
  }

  show(rule: AmountRule): void {
    this.ngn.value = rule.toleranceNgn;
    this.bps.value = String(rule.toleranceBps);
    this.action.value = rule.action;
  }

  input() {
    return {
      toleranceNgn: this.ngn.value.trim(),
      toleranceBps: Number(this.bps.value),
      action: this.action.value,
    };
  }
}

export class PaymentRulesSection {
  private readonly section = byId('payment-rules-section');
  private readonly under = new AmountRuleFields('rule-under');
  private readonly over = new AmountRuleFields('rule-over');
  private readonly nameEnabled = h('input', { id: 'rule-name-enabled', type: 'checkbox' });
  private readonly nameAction = select('rule-name-action', ['FLAG', 'RETURN']);
  private readonly save = h('button', { type: 'submit', class: 'btn btn-primary' }, 'Save rules');
  private readonly messages: Messages;
  /** Raised tolerances, ACCEPT and a name check turned off wait (issue 32). */
  private readonly pending = new PendingChangesList([
    'underpayment.',
    'overpayment.',
    'payer_name_check.',
  ]);
  /** What the form was last filled with: only the fields changed since are sent. */
  private shown: Rules | undefined;

  constructor() {
    const status = h('p', { id: 'payment-rules-status', class: 'msg', role: 'status' });
    const alert = h('p', { id: 'payment-rules-alert', class: 'msg msg-error', role: 'alert' });
    alert.hidden = true;
    this.messages = new Messages(status, alert);
    const form = h(
      'form',
      { id: 'payment-rules-form', class: 'stack', 'aria-label': 'Payment rules' },
      h(
        'p',
        { class: 'muted' },
        'Checked on onramps created with an expected amount: a transfer is within when the ' +
          'difference is at most the larger of the NGN tolerance and the share in basis points.',
      ),
      this.under.fieldset('Underpayment'),
      this.over.fieldset('Overpayment'),
      h(
        'fieldset',
        { class: 'inline-form' },
        h('legend', {}, 'Payer name'),
        h(
          'label',
          { class: 'checkbox', for: 'rule-name-enabled' },
          this.nameEnabled,
          " Check the payer's name against the onramp's payer_name",
        ),
        field('rule-name-action', 'On mismatch', this.nameAction),
      ),
      this.pending.element,
      this.save,
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void busy(this.save, () => this.store());
    });
    this.section.append(
      h('div', { class: 'card-head' }, h('h2', { id: 'payment-rules-heading' }, 'Payment rules')),
      form,
      status,
      alert,
    );
  }

  async load(): Promise<void> {
    try {
      const data = await gql<{ merchantSettings: Rules }>(PAYMENT_RULES_QUERY, {});
      this.show(data.merchantSettings);
    } catch (error) {
      this.messages.error(error);
    }
  }

  reset(): void {
    this.messages.clear();
  }

  private show(applied: Rules): void {
    const rules = askedFor(applied);
    this.under.show(rules.underpayment);
    this.over.show(rules.overpayment);
    this.nameEnabled.checked = rules.payerNameCheck.enabled;
    this.nameAction.value = rules.payerNameCheck.action;
    this.pending.show(rules.pendingChanges);
    this.shown = rules;
  }

  private async store(): Promise<void> {
    try {
      const saved = await gql<{ updateMerchantSettings: Rules }>(UPDATE_PAYMENT_RULES_MUTATION, {
        // Only what the merchant changed: resending a shown value would cancel a pending one.
        input: {
          underpayment: changed(this.shown?.underpayment, this.under.input()),
          overpayment: changed(this.shown?.overpayment, this.over.input()),
          payerNameCheck: changed(this.shown?.payerNameCheck, {
            enabled: this.nameEnabled.checked,
            action: this.nameAction.value,
          }),
        },
      });
      this.show(saved.updateMerchantSettings);
      this.messages.info('Payment rules saved.');
    } catch (error) {
      this.messages.error(error);
    }
  }
}

/** The rules with every pending change in place: what the merchant asked for. */
function askedFor(rules: Rules): Rules {
  const changes = rules.pendingChanges;
  const amount = (name: 'underpayment' | 'overpayment'): AmountRule => ({
    toleranceNgn: requested(changes, `${name}.tolerance_ngn`, rules[name].toleranceNgn),
    toleranceBps: requested(changes, `${name}.tolerance_bps`, rules[name].toleranceBps),
    action: requested<string>(
      changes,
      `${name}.action`,
      rules[name].action,
    ).toUpperCase() as Action,
  });
  return {
    underpayment: amount('underpayment'),
    overpayment: amount('overpayment'),
    payerNameCheck: {
      enabled: requested(changes, 'payer_name_check.enabled', rules.payerNameCheck.enabled),
      action: rules.payerNameCheck.action,
    },
    pendingChanges: changes,
  };
}

function field(id: string, text: string, input: HTMLElement): HTMLDivElement {
  return h('div', { class: 'field' }, h('label', { for: id }, text), input);
}
