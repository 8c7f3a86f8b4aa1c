import { z } from 'zod';

/**
 * Configuration of payer resolution links (docs/api.md, "Payer resolution links"), spread into
 * `configSchema` (src/config.ts).
 */
export const resolutionLinkConfigFields = {
  /**
   * The gateway's public base URL, the start of every link a payer receives
   * (`{PUBLIC_URL}/pay/resolve/{token}`). Never taken from a request's Host header: a forged
   * header would mint links to another site. Unset: `http://{HOST}:{PORT}` in the sandbox; in
   * production links are refused until it is set (https only).
   */
  PUBLIC_URL: z
    .string()
    .url()
    .refine((text) => /^https?:\/\//.test(text), 'must be an http or https URL')
    .refine((text) => !/[?#]/.test(text), 'must not have a query or fragment')
    .optional(),
};

/** The base URL links start with, or why there is none (production without an https URL). */
export function publicBaseUrl(config: {
  ONRAMP_ENV: string;
  HOST: string;
  PORT: number;
  PUBLIC_URL?: string;
}): { url: string; fromListener?: boolean } | { problem: string } {
  const production = config.ONRAMP_ENV === 'production';
  if (!config.PUBLIC_URL) {
    if (production) return { problem: 'PUBLIC_URL is not set: this deployment cannot send links' };
    const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
    // The address actually listened on replaces it once known (PORT=0: any free port).
    return { url: `http://${host}:${config.PORT}`, fromListener: true };
  }
  if (production && !config.PUBLIC_URL.startsWith('https://')) {
    return { problem: 'PUBLIC_URL must be https in production' };
  }
  return { url: config.PUBLIC_URL.replace(/\/+$/, '') };
}
