// An onramp's customer record in words. No DOM and no imports: the unit test
// `dashboard-customer-text.test.ts` runs it under Node.

/** An onramp's customer record as the API shows it (GraphQL `OnrampCustomer`). */
export interface CustomerSummary {
  fields: string[];
  bvnLast4: string | null;
  ninLast4: string | null;
}

const CUSTOMER_DETAILS: Record<string, string> = {
  FIRST_NAME: 'first name',
  LAST_NAME: 'last name',
  PHONE: 'phone',
};

/**
 * "BVN ••••5678 · first name, last name, phone": the identity numbers' last 4 digits and which
 * other details were given (the API never answers names or phone themselves); '—' for none.
 */
export function customerText(customer: CustomerSummary | null | undefined): string {
  if (!customer) return '—';
  const numbers = [
    customer.bvnLast4 ? `BVN ••••${customer.bvnLast4}` : null,
    customer.ninLast4 ? `NIN ••••${customer.ninLast4}` : null,
  ].filter((part): part is string => part !== null);
  const details = customer.fields
    .map((field) => CUSTOMER_DETAILS[field])
    .filter((detail) => detail !== undefined);
  const parts = [...numbers, ...(details.length > 0 ? [details.join(', ')] : [])];
  return parts.length > 0 ? parts.join(' · ') : '—';
}
