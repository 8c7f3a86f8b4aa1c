import type { Merchant } from './merchant.entity';

/** What the audit log keeps of a merchant before and after an operator action. */
export function merchantSnapshot(merchant: Merchant): Record<string, unknown> {
  return { status: merchant.status, name: merchant.name };
}
