// "Return to payer" on a FLAGGED deposit's detail: sends the NGN back (returnDeposit), after a
// confirmation, since money leaves and cannot be called back.

import { gql } from './api.js';
import { RETURN_DEPOSIT_MUTATION } from './documents.js';
import { h, type Messages } from './dom.js';

/** The button, or null when the deposit cannot be returned (only FLAGGED ones can). */
export function returnToPayerButton(
  depositId: string,
  status: string,
  messages: Messages,
  onReturned: () => void,
): HTMLButtonElement | null {
  if (status !== 'FLAGGED') return null;
  const button = h(
    'button',
    { type: 'button', class: 'btn btn-small', 'data-action': 'return-to-payer' },
    'Return to payer',
  );
  button.addEventListener('click', () => {
    if (!window.confirm(`Send deposit ${depositId} back to the account that paid it?`)) return;
    button.disabled = true;
    messages.info('Returning…');
    gql<{ returnDeposit: { status: string } }>(RETURN_DEPOSIT_MUTATION, { id: depositId })
      .then(({ returnDeposit }) => {
        messages.info(`Deposit is ${returnDeposit.status}.`);
        onReturned();
      })
      .catch((error: unknown) => {
        button.disabled = false;
        messages.error(error);
      });
  });
  return button;
}
