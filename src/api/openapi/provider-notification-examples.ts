/**
 * Examples of the bank providers' own notification routes: Paystack's documented
 * `charge.success` for a dedicated account (abridged), as it arrives at
 * /bank/paystack/notifications with its x-paystack-signature.
 */
const AT = '2026-11-25T10:00:00.000Z';
const DEPOSIT_ID = 'dep_01JDQX5N6P7Q8R9S0T1V2W3X4Y';

export const PROVIDER_NOTIFICATION_EXAMPLES = {
  receiveProviderNotification: {
    parameters: { provider: 'paystack' },
    request: {
      event: 'charge.success',
      data: {
        id: 302961,
        reference: 'T109432883312019',
        amount: 5000000,
        currency: 'NGN',
        channel: 'dedicated_nuban',
        status: 'success',
        paid_at: AT,
        authorization: {
          channel: 'dedicated_nuban',
          receiver_bank_account_number: '9012345678',
          sender_name: 'ADA OBI',
          sender_bank: 'First Bank of Nigeria',
        },
      },
    },
    responses: { 200: { received: true, deposit_id: DEPOSIT_ID, status: 'PENDING_FX' } },
  },
};
