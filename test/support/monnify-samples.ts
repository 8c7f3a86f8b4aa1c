// Monnify's documented notification samples (MN-EVT: https://developers.monnify.com/docs/webhooks/event-types),
// as the unit tests and the e2e tests use them.

// MN-EVT "Successful Collection", reserved account (https://developers.monnify.com/docs/webhooks/event-types).
export const collection = () => ({
  eventType: 'SUCCESSFUL_TRANSACTION',
  eventData: {
    product: { reference: '1636106097661', type: 'RESERVED_ACCOUNT' },
    transactionReference: 'MNFY|04|20211117112842|000170',
    paymentReference: 'MNFY|04|20211117112842|000170',
    paidOn: '2021-11-17 11:28:42.615',
    paymentDescription: 'Adm',
    metaData: {},
    paymentSourceInformation: [
      {
        bankCode: '',
        amountPaid: 3000,
        accountName: 'Monnify Limited',
        sessionId: 'e6cV1smlpkwG38Cg6d5F9B2PRnIq5FqA',
        accountNumber: '0065432190',
      },
    ],
    destinationAccountInformation: {
      bankCode: '232',
      bankName: 'Sterling bank',
      accountNumber: '6000140770',
    },
    amountPaid: 3000,
    totalPayable: 3000,
    cardDetails: {},
    paymentMethod: 'ACCOUNT_TRANSFER',
    currency: 'NGN',
    settlementAmount: '2990.00',
    paymentStatus: 'PAID',
    customer: { name: 'John Doe', email: 'test@tester.com' },
  },
});

// MN-EVT "Transaction Hash Computation": sample client secret, sample event and its hash.
export const DOC_SECRET = '91MUDL9N6U3BQRXBQ2PJ9M0PW4J22M1Y';
export const DOC_HASH =
  'f04fb635e04d71648bd3cc7999003da6861483342c856d05ddfa9b2dafacb873b0de1d0f8f67405d0010b4348b721c49fa171d317972618debba6b638aedcd3c';
export const DOC_EVENT = {
  eventData: {
    product: { reference: '111222333', type: 'OFFLINE_PAYMENT_AGENT' },
    transactionReference: 'MNFY|76|20211117154810|000001',
    paymentReference: '0.01462001097368737',
    paidOn: '17/11/2021 3:48:10 PM',
    paymentDescription: 'Mockaroo Jesse',
    metaData: {},
    destinationAccountInformation: {},
    paymentSourceInformation: {},
    amountPaid: 78000,
    totalPayable: 78000,
    offlineProductInformation: { code: '41470', type: 'DYNAMIC' },
    cardDetails: {},
    paymentMethod: 'CASH',
    currency: 'NGN',
    settlementAmount: 77600,
    paymentStatus: 'PAID',
    customer: { name: 'Mockaroo Jesse', email: '111222333@ZZAMZ4WT4Y3E.monnify' },
  },
  eventType: 'SUCCESSFUL_TRANSACTION',
};

// MN-EVT disbursement samples (our returns' outcomes), trimmed to what they carry.
export const disbursement = (
  eventType: string,
  status: string,
  extra: Record<string, unknown> = {},
) => ({
  eventType,
  eventData: {
    amount: 10,
    transactionReference: 'MFDS|20210317032332|002431',
    fee: 8,
    transactionDescription: 'Approved or completed successfully',
    destinationAccountNumber: '0068687503',
    sessionId: '090405210317032336726272971260',
    createdOn: '17/03/2021 3:23:32 AM',
    destinationAccountName: 'DAMILARE SAMUEL OGUNNAIKE',
    reference: 'ref1615947809303',
    destinationBankCode: '232',
    completedOn: '17/03/2021 3:23:38 AM',
    narration: 'This is a quite long narration',
    currency: 'NGN',
    destinationBankName: 'Sterling bank',
    status,
    ...extra,
  },
});
