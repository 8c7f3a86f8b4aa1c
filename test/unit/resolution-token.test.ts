import { randomBytes } from 'node:crypto';
import {
  LINK_LIFETIME,
  signResolutionToken,
  verifyResolutionToken,
  wholeSeconds,
} from '../../src/domain/resolution-token';
import {
  linkLifetimeSeconds,
  parsePayerResolution,
  payerOptions,
  PAYER_FIXABLE_REASONS,
  storedPayerResolution,
  type PayerOptionFacts,
} from '../../src/domain/payer-resolution';
import { REASON } from '../../src/domain/deposit-reasons';
import { escapeHtml, html } from '../../src/api/payer-page/html';
import { resolutionLinkKey } from '../../src/crypto/resolution-link-key';

const key = randomBytes(32);
const linkId = 'rsl_01JDQX7A8B9C0D1E2F3G4H5J6K';
const expiresAt = new Date('2026-11-26T10:00:00.000Z');

describe('resolution link tokens', () => {
  const token = signResolutionToken(key, { linkId, expiresAt });

  it('verifies what it signed: the link id and the expiry', () => {
    expect(token.split('.')).toHaveLength(3);
    expect(verifyResolutionToken(key, token)).toEqual({ linkId, expiresAt });
  });

  it('refuses any one character changed, in the id, the expiry or the signature', () => {
    for (let i = 0; i < token.length; i += 1) {
      if (token[i] === '.') continue;
      const other = token[i] === 'A' ? 'B' : 'A';
      const altered = token.slice(0, i) + other + token.slice(i + 1);
      expect(verifyResolutionToken(key, altered)).toBeNull();
    }
  });

  it('refuses every other spelling of the signature (base64url padding bits)', () => {
    const mac = token.split('.')[2];
    const last = mac[mac.length - 1];
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (const c of alphabet.replace(last, '')) {
      expect(verifyResolutionToken(key, token.slice(0, -1) + c)).toBeNull();
    }
  });

  it('refuses another key, other shapes and oversized input', () => {
    expect(verifyResolutionToken(randomBytes(32), token)).toBeNull();
    for (const text of ['', '.', '..', `${token}.x`, token.replace(/\./g, ''), 'a'.repeat(5000)]) {
      expect(verifyResolutionToken(key, text)).toBeNull();
    }
    // A longer expiry signed for another link does not carry over.
    const [, seconds, mac] = token.split('.');
    expect(
      verifyResolutionToken(key, `rsl_01JDQX7A8B9C0D1E2F3G4H5J6M.${seconds}.${mac}`),
    ).toBeNull();
  });

  it('keeps expiries to whole seconds', () => {
    expect(wholeSeconds(new Date('2026-11-26T10:00:00.999Z'))).toEqual(expiresAt);
  });

  it('derives the key from ENCRYPTION_KEY (HKDF): stable, and different per key', () => {
    const a = resolutionLinkKey({ ENCRYPTION_KEY: '11'.repeat(32) });
    expect(resolutionLinkKey({ ENCRYPTION_KEY: '11'.repeat(32) })).toEqual(a);
    expect(resolutionLinkKey({ ENCRYPTION_KEY: '22'.repeat(32) })).not.toEqual(a);
    expect(a).not.toEqual(Buffer.from('11'.repeat(32), 'hex'));
  });
});

describe('what a payer may choose', () => {
  const facts = (over: Partial<PayerOptionFacts> = {}): PayerOptionFacts => ({
    status: 'FLAGGED',
    flagReason: REASON.underpaid,
    merchantActive: true,
    allowSettle: true,
    settlePlannable: true,
    converted: false,
    reversed: false,
    senderAccountKnown: true,
    ...over,
  });

  it('offers both for a fixable reason when the merchant allows settling', () => {
    expect(payerOptions(facts())).toEqual({ settle: true, return: true });
  });

  it('offers nothing when the sender account is unknown: the payer could not prove himself', () => {
    expect(payerOptions(facts({ senderAccountKnown: false }))).toEqual({
      settle: false,
      return: false,
    });
  });

  it('never offers settle unless allowed, fixable, active and plannable', () => {
    expect(payerOptions(facts({ allowSettle: false })).settle).toBe(false);
    expect(payerOptions(facts({ merchantActive: false })).settle).toBe(false);
    expect(payerOptions(facts({ settlePlannable: false })).settle).toBe(false);
    for (const reason of [
      REASON.merchantFrozen,
      REASON.riskRejected,
      REASON.fxPermanent,
      REASON.chainOutage,
      'Exceeds the per-deposit limit of 1,000 USD',
    ]) {
      expect(payerOptions(facts({ flagReason: reason })).settle).toBe(false);
    }
    expect(PAYER_FIXABLE_REASONS.size).toBe(7);
  });

  it('offers a return only for unconverted NGN with a known sender', () => {
    expect(payerOptions(facts({ converted: true })).return).toBe(false);
    expect(payerOptions(facts({ reversed: true })).return).toBe(false);
    expect(payerOptions(facts({ senderAccountKnown: false })).return).toBe(false);
  });

  it('offers nothing once the deposit left FLAGGED', () => {
    expect(payerOptions(facts({ status: 'RETURNING' }))).toEqual({ settle: false, return: false });
  });
});

describe('payer_resolution setting and link lifetime', () => {
  it('parses, merges and defaults', () => {
    expect(storedPayerResolution(null)).toEqual({ allow_settle: false });
    expect(storedPayerResolution({ allow_settle: true })).toEqual({ allow_settle: true });
    expect(parsePayerResolution({ allow_settle: true }, { allow_settle: false })).toEqual({
      allow_settle: true,
    });
    expect(parsePayerResolution({}, { allow_settle: true })).toEqual({ allow_settle: true });
    expect(() => parsePayerResolution({ allow_settle: 'yes' }, { allow_settle: false })).toThrow(
      /allow_settle/,
    );
    expect(() => parsePayerResolution({ other: 1 }, { allow_settle: false })).toThrow(/other/);
    expect(() => parsePayerResolution([], { allow_settle: false })).toThrow(/object/);
  });

  it('bounds expires_in_seconds', () => {
    expect(linkLifetimeSeconds(undefined)).toBe(LINK_LIFETIME.defaultSeconds);
    expect(linkLifetimeSeconds(300)).toBe(300);
    expect(linkLifetimeSeconds(604_800)).toBe(604_800);
    for (const bad of [299, 604_801, 1.5, '600', -1]) {
      expect(() => linkLifetimeSeconds(bad)).toThrow(/expires_in_seconds/);
    }
  });
});

describe('the page escapes what it shows', () => {
  it('escapes values and keeps built fragments', () => {
    expect(escapeHtml(`<script>"x" & 'y'</script>`)).toBe(
      '&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;',
    );
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p>${inner}${null}${['<', inner]}</p>`.text).toBe(
      '<p><b>&lt;i&gt;</b>&lt;<b>&lt;i&gt;</b></p>',
    );
  });
});
