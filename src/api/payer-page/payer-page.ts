import { randomBytes } from 'node:crypto';
import type { PayerPageView } from '../../deposits';
import { html, type SafeHtml } from './html';
import { naira, payerReasonText, payerStatusText } from './payer-texts';

/** A rendered page: status code, HTML and the headers that go with it (the CSP's nonce). */
export interface RenderedPage {
  status: number;
  body: string;
  headers: Record<string, string>;
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.4rem}.amount{font-size:1.6rem;font-weight:600}
form{border:1px solid #ccc;border-radius:8px;padding:1rem;margin:1rem 0}
button{font-size:1rem;padding:.6rem 1.2rem;border-radius:6px;border:0;background:#1f5eff;color:#fff;cursor:pointer}
.muted{color:#555;font-size:.9rem}`;

/**
 * The whole document: no external asset, the one inline style allowed by its nonce, forms
 * posting to this same URL only, never framed, never cached, never indexed, no Referer sent
 * (the URL is the payer's credential).
 */
function page(status: number, title: string, content: SafeHtml): RenderedPage {
  const nonce = randomBytes(16).toString('base64');
  const body = html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>${title}</title>
        <style nonce="${nonce}">
          ${STYLE}
        </style>
      </head>
      <body>
        <main>${content}</main>
      </body>
    </html>`;
  return {
    status,
    body: body.text,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': `default-src 'none'; style-src 'nonce-${nonce}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-robots-tag': 'noindex',
      'x-content-type-options': 'nosniff',
    },
  };
}

/**
 * The full number of the account the payer paid from: the merchant sees only its last 4
 * digits, so only the payer can choose (docs/api.md, "Payer resolution links").
 */
const accountField = (form: string) =>
  html`<p>
    <label for="account-${form}">The 10-digit number of the account you paid from</label><br />
    <input
      id="account-${form}"
      name="account_number"
      inputmode="numeric"
      autocomplete="off"
      maxlength="14"
      required
    />
  </p>`;

const CHOSEN_TEXT = { settle: 'convert at the current rate', return: 'return the money' } as const;

/** The link's page: the choices while the deposit waits, otherwise where it stands. */
export function resolutionPage(view: PayerPageView): RenderedPage {
  const merchant = view.merchantName ? html` to <strong>${view.merchantName}</strong>` : '';
  const header = html`<h1>Your transfer${merchant}</h1>
    <p class="amount" id="amount">${naira(view.amountNgn)}</p>`;
  if (view.chosen || view.status !== 'FLAGGED') {
    const chosen = view.chosen
      ? html`<p id="chosen" data-choice="${view.chosen}">
          You chose to ${CHOSEN_TEXT[view.chosen]}.
        </p>`
      : html`<p id="resolved">This transfer was already dealt with.</p>`;
    return page(
      200,
      'Your transfer',
      html`${header}${chosen}
        <p id="outcome" data-status="${view.status}">${payerStatusText(view.status)}</p>`,
    );
  }
  if (view.locked) {
    return page(
      403,
      'Your transfer',
      html`${header}
        <p id="locked">
          Too many wrong account numbers were entered: this transfer can no longer be decided here.
          The merchant will contact you.
        </p>`,
    );
  }
  const settle = view.settle
    ? html`<form method="post" id="settle">
        <input type="hidden" name="choice" value="settle" />
        ${accountField('settle')}
        <p><strong>Convert at today's rate</strong></p>
        <p>You will be credited <strong>${view.settle.amount} ${view.settle.asset}</strong>.</p>
        <button type="submit">Convert</button>
      </form>`
    : '';
  const back = view.return
    ? html`<form method="post" id="return">
        <input type="hidden" name="choice" value="return" />
        ${accountField('return')}
        <p><strong>Return my money</strong></p>
        <p>
          <strong>${naira(view.return.amountNgn)}</strong> back to account
          ****${view.return.last4}${view.return.bankCode ? html` (bank ${view.return.bankCode})` : ''},
          after the return fee.
        </p>
        <button type="submit">Return</button>
      </form>`
    : '';
  const none =
    !view.settle && !view.return
      ? html`<p id="no-options">There is nothing to choose here: the merchant will contact you.</p>`
      : '';
  return page(
    200,
    'Your transfer needs a decision',
    html`${header}
      <p id="reason">${payerReasonText(view.flagReason)}</p>
      ${settle}${back}${none}
      <p class="muted">
        This link expires at ${view.expiresAt.toISOString().replace('T', ' ').slice(0, 16)} UTC.
      </p>`,
  );
}

/** A link or choice refused: a page, never a stack trace, never a deposit's data. */
export function refusalPage(status: number, message: string): RenderedPage {
  return page(
    status,
    'Payment link',
    html`<h1>Payment link</h1>
      <p id="refusal" data-status="${status}">${message}</p>`,
  );
}
