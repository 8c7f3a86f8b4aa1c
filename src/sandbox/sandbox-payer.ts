/**
 * Who a simulated transfer comes from when the caller names nobody: a real bank always says
 * which account paid, and a return to the payer needs it, so sandbox deposits can be returned
 * like real ones. (NUBAN-shaped, sandbox bank code.)
 */
export const SANDBOX_PAYER = {
  senderName: 'SANDBOX PAYER',
  senderAccount: '0000000001',
  senderBank: '999999',
} as const;
