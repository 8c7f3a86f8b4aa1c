// "Resolution link" on a FLAGGED deposit's detail: asks for a signed link the merchant sends
// to the payer (createResolutionLink), who then converts or has his money returned himself.
// A new link supersedes the older ones, so it is only asked for on a click.

import { gql } from './api.js';
import { CREATE_RESOLUTION_LINK_MUTATION } from './documents.js';
import { h, type Messages } from './dom.js';

/** The button (and, once asked, the link to copy), or null unless the deposit is FLAGGED. */
export function resolutionLinkAction(
  depositId: string,
  status: string,
  messages: Messages,
): HTMLElement | null {
  if (status !== 'FLAGGED') return null;
  const button = h(
    'button',
    { type: 'button', class: 'btn btn-small', 'data-action': 'resolution-link' },
    'Resolution link',
  );
  const wrapper = h('span', {}, ' ', button);
  button.addEventListener('click', () => {
    button.disabled = true;
    gql<{ createResolutionLink: { url: string; expiresAt: string } }>(
      CREATE_RESOLUTION_LINK_MUTATION,
      { id: depositId },
    )
      .then(({ createResolutionLink: link }) => {
        const field = h('input', {
          type: 'text',
          readonly: 'readonly',
          'aria-label': 'Resolution link for the payer',
          'data-role': 'resolution-link',
          value: link.url,
          size: 40,
        });
        wrapper.replaceChildren(' ', field);
        messages.info(`Send this link to the payer; it works until ${link.expiresAt}.`);
      })
      .catch((error: unknown) => {
        button.disabled = false;
        messages.error(error);
      });
  });
  return wrapper;
}
