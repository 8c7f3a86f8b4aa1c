// Every GraphQL document the dashboard sends, in one place, so that one unit test
// (test/unit/dashboard-documents.test.ts) can parse each and validate it against schema.graphql:
// a misspelt field or a wrong argument type fails the build's tests, not the merchant's browser.
// Only string constants here (no imports), so the test can load this file outside a browser.
// An exported constant that starts with `query`, `mutation` or `subscription` is a document;
// the `*_FIELDS` selections are shared pieces of them.

// ---- Merchant and balance ----

export const WEBHOOK_ENDPOINT_FIELDS = 'url secret enabled createdAt';

export const MERCHANT_QUERY = `query DashboardMerchant {
  merchant {
    id name status
    balance { usdAvailable usdPendingWithdrawal usdReserved updatedAt }
    webhookEndpoint { ${WEBHOOK_ENDPOINT_FIELDS} }
  }
}`;

// ---- Rate and volume ----

export const RATE_QUERY = `query DashboardRate($from: String!, $to: String) {
  rate(from: $from, to: $to) { rateId rate inverseRate marketRate feeBps minDepositNgn from to expiresAt }
}`;

export const SETTLED_VOLUME_QUERY = `query DashboardSettledVolume($days: Int) {
  settledVolume(days: $days) { day usd count }
}`;

// ---- Deposits ----

export const DEPOSIT_FIELDS = `id depositId onrampId amountNgn amountAsset asset chain status txHash
  flagReason failureReason bankReference createdAt updatedAt settledAt`;

export const DEPOSITS_QUERY = `query DashboardDeposits($first: Int) {
  deposits(first: $first) { edges { node { ${DEPOSIT_FIELDS} } } }
}`;

export const DEPOSIT_QUERY = `query DashboardDeposit($id: ID!) {
  deposit(id: $id) {
    ${DEPOSIT_FIELDS} paymentReference userEmail rateId
    payer { accountName accountNumberLast4 bankCode }
    statusHistory { status event at }
  }
}`;

/** The live table's subscription (graphql-ws): every deposit of the merchant as it changes. */
export const RETURN_DEPOSIT_MUTATION = `mutation DashboardReturnDeposit($id: ID!) {
  returnDeposit(id: $id) { status }
}`;

export const CREATE_RESOLUTION_LINK_MUTATION = `mutation DashboardCreateResolutionLink($id: ID!) {
  createResolutionLink(depositId: $id) { url expiresAt }
}`;

export const DEPOSIT_UPDATED_SUBSCRIPTION = `subscription DashboardDepositUpdated {
  depositUpdated { ${DEPOSIT_FIELDS} }
}`;

// ---- Onramps ----

export const ONRAMP_FIELDS = `onrampId type status userEmail rateId expiresAt createdAt
  virtualAccount { accountNumber accountName bankName bankCode }
  customer { fields bvnLast4 ninLast4 }`;

export const ONRAMPS_QUERY = `query DashboardOnramps($first: Int) {
  onramps(first: $first) { edges { node { ${ONRAMP_FIELDS} } } }
}`;

export const CREATE_ONRAMP_MUTATION = `mutation DashboardCreateOnramp($input: CreateOnrampInput!) {
  createOnramp(input: $input) { clientSecret onramp { ${ONRAMP_FIELDS} } }
}`;

// ---- Webhooks ----

export const WEBHOOK_DELIVERY_FIELDS = `id eventId event status attemptCount lastStatusCode nextAttemptAt createdAt replay
  attempts { number statusCode error latencyMs attemptedAt }`;

export const SET_WEBHOOK_ENDPOINT_MUTATION = `mutation DashboardSetWebhookEndpoint($url: String!) {
  setWebhookEndpoint(url: $url) { ${WEBHOOK_ENDPOINT_FIELDS} }
}`;

export const ROTATE_WEBHOOK_SECRET_MUTATION = `mutation DashboardRotateWebhookSecret {
  rotateWebhookSecret { ${WEBHOOK_ENDPOINT_FIELDS} }
}`;

export const WEBHOOK_DELIVERIES_QUERY = `query DashboardWebhookDeliveries($first: Int) {
  webhookDeliveries(first: $first) { edges { node { ${WEBHOOK_DELIVERY_FIELDS} } } }
}`;

export const REPLAY_WEBHOOK_EVENT_MUTATION = `mutation DashboardReplayWebhookEvent($eventId: ID!) {
  replayWebhookEvent(eventId: $eventId) { ${WEBHOOK_DELIVERY_FIELDS} }
}`;

// ---- Sandbox ----

export const SIMULATE_DEPOSIT_MUTATION = `mutation DashboardSimulateDeposit($input: SimulateDepositInput!) {
  simulateDeposit(input: $input) { depositId status amountNgn bankReference }
}`;

export const SIMULATE_REVERSAL_MUTATION = `mutation DashboardSimulateReversal($bankReference: String!) {
  simulateReversal(bankReference: $bankReference) { depositId status amountNgn bankReference }
}`;

export const SET_SANDBOX_SCENARIO_MUTATION = `mutation DashboardSetSandboxScenario($input: SandboxScenarioInput!) {
  setSandboxScenario(input: $input) {
    fxFailure chainOutage riskReject rateSourceDown autoDepositNgn autoDepositDelaySeconds
  }
}`;

// ---- Webhook endpoints (several per merchant) ----

export const WEBHOOK_ENDPOINTS_FIELDS = `id url enabledEvents description status createdAt`;

export const WEBHOOK_ENDPOINTS_QUERY = `query DashboardWebhookEndpoints {
  webhookEndpoints(first: 10) { edges { node { ${WEBHOOK_ENDPOINTS_FIELDS} } } }
}`;

export const CREATE_WEBHOOK_ENDPOINT_MUTATION = `mutation DashboardCreateWebhookEndpoint($input: CreateWebhookEndpointInput!) {
  createWebhookEndpoint(input: $input) { ${WEBHOOK_ENDPOINTS_FIELDS} secret }
}`;

export const UPDATE_WEBHOOK_ENDPOINT_MUTATION = `mutation DashboardUpdateWebhookEndpoint($id: ID!, $input: UpdateWebhookEndpointInput!) {
  updateWebhookEndpoint(id: $id, input: $input) { ${WEBHOOK_ENDPOINTS_FIELDS} }
}`;

export const ROTATE_WEBHOOK_ENDPOINT_SECRET_MUTATION = `mutation DashboardRotateWebhookEndpointSecret($id: ID!) {
  rotateWebhookEndpointSecret(id: $id) { ${WEBHOOK_ENDPOINTS_FIELDS} secret }
}`;

export const TEST_WEBHOOK_ENDPOINT_MUTATION = `mutation DashboardTestWebhookEndpoint($id: ID!) {
  testWebhookEndpoint(id: $id) { ${WEBHOOK_DELIVERY_FIELDS} }
}`;

export const ENDPOINT_DELIVERIES_QUERY = `query DashboardEndpointDeliveries($first: Int, $endpointId: ID) {
  webhookDeliveries(first: $first, endpointId: $endpointId) { edges { node { ${WEBHOOK_DELIVERY_FIELDS} } } }
}`;

export const REPLAY_TO_ENDPOINT_MUTATION = `mutation DashboardReplayToEndpoint($eventId: ID!, $endpointId: ID) {
  replayWebhookEvent(eventId: $eventId, endpointId: $endpointId) { ${WEBHOOK_DELIVERY_FIELDS} }
}`;

// ---- Address book and settings ----

/** Widening settings changes waiting for their delay (issue 32). */
const PENDING_CHANGES = 'pendingChanges { field value effectiveAt }';

export const WITHDRAWAL_ADDRESS_FIELDS = 'id chain address label status activeAt createdAt';

export const WITHDRAWAL_ADDRESSES_QUERY = `query DashboardWithdrawalAddresses($first: Int) {
  withdrawalAddresses(first: $first) { totalCount edges { node { ${WITHDRAWAL_ADDRESS_FIELDS} } } }
  merchantSettings { requireAddressBook ${PENDING_CHANGES} }
}`;

export const ADD_WITHDRAWAL_ADDRESS_MUTATION = `mutation DashboardAddWithdrawalAddress($input: AddWithdrawalAddressInput!) {
  addWithdrawalAddress(input: $input) { ${WITHDRAWAL_ADDRESS_FIELDS} }
}`;

export const REMOVE_WITHDRAWAL_ADDRESS_MUTATION = `mutation DashboardRemoveWithdrawalAddress($id: ID!) {
  removeWithdrawalAddress(id: $id) { id status }
}`;

export const UPDATE_MERCHANT_SETTINGS_MUTATION = `mutation DashboardUpdateMerchantSettings($input: UpdateMerchantSettingsInput!) {
  updateMerchantSettings(input: $input) { requireAddressBook ${PENDING_CHANGES} }
}`;

// ---- API keys ----

const API_KEY_FIELDS = 'id name scopes allowedIps keyPrefix createdAt revokedAt';

export const API_KEYS_QUERY = `query DashboardApiKeys($first: Int) {
  apiKeys(first: $first) { edges { node { ${API_KEY_FIELDS} } } totalCount }
}`;

export const CREATE_API_KEY_MUTATION = `mutation DashboardCreateApiKey($input: CreateApiKeyInput!) {
  createApiKey(input: $input) { ${API_KEY_FIELDS} secret }
}`;

export const REVOKE_API_KEY_MUTATION = `mutation DashboardRevokeApiKey($id: ID!) {
  revokeApiKey(id: $id) { ${API_KEY_FIELDS} }
}`;

// ---- Payment rules ----

const PAYMENT_RULES_FIELDS = `underpayment { toleranceNgn toleranceBps action }
  overpayment { toleranceNgn toleranceBps action }
  payerNameCheck { enabled action }
  ${PENDING_CHANGES}`;

export const PAYMENT_RULES_QUERY = `query DashboardPaymentRules {
  merchantSettings { ${PAYMENT_RULES_FIELDS} }
}`;

export const UPDATE_PAYMENT_RULES_MUTATION = `mutation DashboardUpdatePaymentRules($input: UpdateMerchantSettingsInput!) {
  updateMerchantSettings(input: $input) { ${PAYMENT_RULES_FIELDS} }
}`;

export const ALLOWED_ORIGINS_QUERY = `query DashboardAllowedOrigins {
  merchantSettings { allowedOrigins }
}`;

export const UPDATE_ALLOWED_ORIGINS_MUTATION = `mutation DashboardUpdateAllowedOrigins($input: UpdateMerchantSettingsInput!) {
  updateMerchantSettings(input: $input) { allowedOrigins }
}`;
