// Sandbox section (sandbox merchants only): simulated bank transfers and reversals, and the fault
// scenario switches.

import { gql } from './api.js';
import {
  SET_SANDBOX_SCENARIO_MUTATION,
  SIMULATE_DEPOSIT_MUTATION,
  SIMULATE_REVERSAL_MUTATION,
} from './documents.js';
import { busy, byId, Messages } from './dom.js';

interface SimulatedDeposit {
  depositId: string;
  status: string;
  amountNgn: string;
  bankReference: string;
}

interface Scenario {
  fxFailure: string;
  chainOutage: string[];
  riskReject: boolean;
  rateSourceDown: boolean;
  autoDepositNgn: string | null;
  autoDepositDelaySeconds: number;
}

const CHAINS = ['BASE', 'ETHEREUM', 'POLYGON'] as const;
const AMOUNT = /^\d+(\.\d{1,2})?$/;

export class SandboxSection {
  private readonly section = byId('sandbox-section');
  private readonly messages = Messages.of('sandbox');
  private readonly account = byId<HTMLInputElement>('sim-account');
  private readonly amount = byId<HTMLInputElement>('sim-amount');
  private readonly reference = byId<HTMLInputElement>('sim-reference');
  private readonly reversalReference = byId<HTMLInputElement>('rev-reference');
  private readonly fx = byId<HTMLSelectElement>('scn-fx');
  private readonly outage: Record<(typeof CHAINS)[number], HTMLInputElement> = {
    BASE: byId<HTMLInputElement>('scn-outage-base'),
    ETHEREUM: byId<HTMLInputElement>('scn-outage-ethereum'),
    POLYGON: byId<HTMLInputElement>('scn-outage-polygon'),
  };
  private readonly riskReject = byId<HTMLInputElement>('scn-risk');
  private readonly rateSourceDown = byId<HTMLInputElement>('scn-rate-down');
  /** The account number this page filled in last (so a typed one is never overwritten). */
  private prefilled = '';

  constructor() {
    onSubmit('simulate-deposit-form', () => this.simulateDeposit());
    onSubmit('simulate-reversal-form', () => this.simulateReversal());
    onSubmit('scenario-form', () => this.saveScenario());
  }

  show(visible: boolean): void {
    this.section.hidden = !visible;
  }

  /** Pre-fills "Account number" with a new onramp's account, unless the user typed another. */
  suggestAccount(accountNumber: string): void {
    if (this.account.value === '' || this.account.value === this.prefilled) {
      this.account.value = accountNumber;
      this.prefilled = accountNumber;
    }
  }

  reset(): void {
    this.show(false);
    this.messages.clear();
    for (const form of Array.from(this.section.querySelectorAll('form'))) form.reset();
    this.prefilled = '';
  }

  private async simulateDeposit(): Promise<void> {
    const accountNumber = this.account.value.trim();
    const amountNgn = this.amount.value.trim().replace(/,/g, '');
    const bankReference = this.reference.value.trim();
    if (!accountNumber) return this.invalid(this.account, 'Enter the account number.');
    if (!AMOUNT.test(amountNgn)) {
      return this.invalid(this.amount, 'Enter the amount in NGN, e.g. 50000 or 50000.00.');
    }
    try {
      const input: Record<string, string> = { accountNumber, amountNgn };
      if (bankReference) input.bankReference = bankReference;
      const { simulateDeposit: d } = await gql<{ simulateDeposit: SimulatedDeposit }>(
        SIMULATE_DEPOSIT_MUTATION,
        { input },
      );
      this.reversalReference.value = d.bankReference;
      this.messages.info(
        `Deposit ${d.depositId}: ${d.amountNgn} NGN, bank reference ${d.bankReference}, status ${d.status}.`,
      );
    } catch (error) {
      this.messages.error(error);
    }
  }

  private async simulateReversal(): Promise<void> {
    const bankReference = this.reversalReference.value.trim();
    if (!bankReference) return this.invalid(this.reversalReference, 'Enter the bank reference.');
    try {
      const { simulateReversal: d } = await gql<{ simulateReversal: SimulatedDeposit }>(
        SIMULATE_REVERSAL_MUTATION,
        { bankReference },
      );
      this.messages.info(`Reversal of ${d.bankReference}: deposit ${d.depositId} is ${d.status}.`);
    } catch (error) {
      this.messages.error(error);
    }
  }

  private async saveScenario(): Promise<void> {
    const input = {
      fxFailure: this.fx.value,
      chainOutage: CHAINS.filter((chain) => this.outage[chain].checked),
      riskReject: this.riskReject.checked,
      rateSourceDown: this.rateSourceDown.checked,
    };
    try {
      const { setSandboxScenario: s } = await gql<{ setSandboxScenario: Scenario }>(
        SET_SANDBOX_SCENARIO_MUTATION,
        {
          input,
        },
      );
      // Show what the server now has.
      this.fx.value = s.fxFailure;
      for (const chain of CHAINS) this.outage[chain].checked = s.chainOutage.includes(chain);
      this.riskReject.checked = s.riskReject;
      this.rateSourceDown.checked = s.rateSourceDown;
      const faults = [
        s.fxFailure !== 'NONE' ? `FX failure ${s.fxFailure}` : '',
        ...s.chainOutage.map((chain) => `${chain} outage`),
        s.riskReject ? 'risk reject' : '',
        s.rateSourceDown ? 'rate source down' : '',
      ].filter(Boolean);
      this.messages.info(
        `Scenario saved: ${faults.length ? faults.join(', ') : 'no faults'}` +
          (s.autoDepositNgn ? `; auto deposit ${s.autoDepositNgn} NGN.` : '.'),
      );
    } catch (error) {
      this.messages.error(error);
    }
  }

  private invalid(input: HTMLInputElement, message: string): void {
    this.messages.error(message);
    input.focus();
  }
}

function onSubmit(formId: string, handler: () => Promise<void>): void {
  const form = byId<HTMLFormElement>(formId);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const button = form.querySelector<HTMLButtonElement>('button[type="submit"]');
    if (button) void busy(button, handler);
  });
}
