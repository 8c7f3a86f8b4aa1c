// Entry point: checks the session, switches between the sign-in form and the dashboard, and wires
// the sections to each other and to the live deposit subscription.

import {
  ApiError,
  getSession,
  onUnauthorized,
  setCsrfToken,
  signOut,
  type Session,
} from './api.js';
import { AddressBookSection } from './address-book.js';
import { PaymentRulesSection } from './payment-rules.js';
import { AllowedOriginsSection } from './allowed-origins.js';
import { ApiKeysSection } from './api-keys.js';
import { BalanceSection } from './balance.js';
import { DepositDetailSection } from './deposit-detail.js';
import { DepositsSection, type Deposit } from './deposits.js';
import { busy, byId, errorMessage, setText } from './dom.js';
import { OnrampsSection } from './onramps.js';
import { RateSection } from './rate.js';
import { ReportsSection } from './reports.js';
import { SandboxSection } from './sandbox.js';
import { SignInView } from './sign-in.js';
import { VolumeChartSection } from './volume-chart.js';
import { WebhooksSection } from './webhooks.js';
import { WebhookEndpointsSection } from './webhook-endpoints.js';
import { GraphQLWsClient, graphqlWsUrl } from './ws-client.js';

const SESSION_ENDED = 'Your session has ended. Sign in again.';

const boot = byId('boot');
const signedOutView = byId('signed-out');
const signedInView = byId('signed-in');
const merchantName = byId('merchant-name');
const merchantEnv = byId('merchant-env');
const sessionAlert = byId('session-alert');
const signOutButton = byId<HTMLButtonElement>('sign-out');

const rate = new RateSection();
const balance = new BalanceSection();
const onramps = new OnrampsSection(rate);
const volume = new VolumeChartSection();
const webhooks = new WebhooksSection();
const webhookEndpoints = new WebhookEndpointsSection();
const sandbox = new SandboxSection();
const addressBook = new AddressBookSection();
const paymentRules = new PaymentRulesSection();
const allowedOrigins = new AllowedOriginsSection();
const apiKeys = new ApiKeysSection();
const reports = new ReportsSection();
const detail = new DepositDetailSection();
const deposits = new DepositsSection({
  onChange: (deposit, previous, live) => onDepositChange(deposit, previous, live),
  onDetails: (depositId) => void detail.open(depositId),
});
const signInView = new SignInView((session) => enter(session));

let session: Session | null = null;
let client: GraphQLWsClient | null = null;
let csrf = '';

detail.onSelect = (depositId) => deposits.setSelected(depositId);
balance.onMerchant = (merchant) => {
  setText(merchantName, merchant.name);
  webhooks.setEndpoint(merchant.webhookEndpoint);
};
onramps.onCreated = (onramp) => sandbox.suggestAccount(onramp.virtualAccount.accountNumber);

// ---- Debounced refreshes triggered by deposit changes ----

function debounce(fn: () => void, ms: number): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  return () => {
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      if (session) fn();
    }, ms);
  };
}

const refreshBalance = debounce(() => void balance.load(), 300);
const refreshVolume = debounce(() => void volume.load(), 300);
const refreshDetail = debounce(() => void detail.refresh(), 200);
// Webhook deliveries are created by the job runner shortly after the status change.
const refreshDeliveries = debounce(() => void webhooks.loadDeliveries(), 2_000);

function onDepositChange(deposit: Deposit, previous: Deposit | undefined, live: boolean): void {
  // The first load of the list changes nothing elsewhere; live events and refetched changes do.
  if (!previous && !live) return;
  const statusChanged = previous?.status !== deposit.status;
  if (statusChanged) {
    refreshBalance();
    refreshDeliveries();
    if (deposit.status === 'SETTLED' || previous?.status === 'SETTLED') refreshVolume();
  }
  if (detail.openId === deposit.depositId) refreshDetail();
}

// ---- Session ----

function showMerchant(s: Session): void {
  setText(merchantName, s.merchant.name);
  const sandboxEnv = s.merchant.environment === 'sandbox';
  setText(
    merchantEnv,
    sandboxEnv
      ? 'Sandbox'
      : s.merchant.environment === 'production'
        ? 'Live'
        : s.merchant.environment,
  );
  merchantEnv.classList.toggle('badge-sandbox', sandboxEnv);
  merchantEnv.classList.toggle('badge-live', !sandboxEnv);
  document.title = `${s.merchant.name} · Onramp dashboard`;
}

function enter(s: Session): void {
  session = s;
  csrf = s.csrf_token;
  setCsrfToken(csrf);
  showMerchant(s);
  sessionAlert.hidden = true;
  boot.hidden = true;
  signedOutView.hidden = true;
  signedInView.hidden = false;
  sandbox.show(s.merchant.environment === 'sandbox');
  apiKeys.show(s.scopes?.includes('all') ?? false);

  rate.start();
  void balance.load();
  void onramps.load().then(() => {
    const account = onramps.newestActiveAccount();
    if (account) sandbox.suggestAccount(account);
  });
  void deposits.load();
  void volume.load();
  void webhooks.loadDeliveries();
  void webhookEndpoints.load();
  void addressBook.load();
  void paymentRules.load();
  void allowedOrigins.load();
  startLive();
  byId('main').focus({ preventScroll: true });
}

function startLive(): void {
  client?.stop();
  const ws = new GraphQLWsClient({
    url: graphqlWsUrl(),
    connectionPayload: () => ({ csrfToken: csrf }),
    onStateChange: (state) => deposits.setConnectionState(state),
    onConnected: (reconnected) => {
      // Cover what changed before the subscription took effect (and while disconnected).
      void deposits.load();
      setTimeout(() => {
        if (client === ws) void deposits.load();
      }, 1_000);
      if (reconnected) {
        void balance.load();
        void volume.load();
        void detail.refresh();
      }
    },
    onAuthFailure: () => void checkSessionAfterSocketRefusal(ws),
  });
  client = ws;
  ws.start();
  deposits.subscribe(ws);
}

/** The socket was refused: either the session ended, or it was a transient mismatch. */
async function checkSessionAfterSocketRefusal(ws: GraphQLWsClient): Promise<void> {
  try {
    const current = await getSession();
    if (client !== ws) return;
    if (!current) {
      leave(SESSION_ENDED);
      return;
    }
    csrf = current.csrf_token;
    setCsrfToken(csrf);
  } catch {
    // Could not tell; try the socket again below.
  }
  setTimeout(() => {
    if (client === ws && session) startLive();
  }, 5_000);
}

function leave(message?: string): void {
  session = null;
  client?.stop();
  client = null;
  csrf = '';
  setCsrfToken(null);
  rate.stop();
  balance.reset();
  onramps.reset();
  deposits.reset();
  detail.reset();
  volume.reset();
  webhooks.reset();
  webhookEndpoints.reset();
  sandbox.reset();
  addressBook.reset();
  paymentRules.reset();
  allowedOrigins.reset();
  apiKeys.reset();
  reports.reset();
  setText(merchantName, '');
  setText(merchantEnv, '');
  document.title = 'Onramp dashboard';
  boot.hidden = true;
  signedInView.hidden = true;
  signedOutView.hidden = false;
  signInView.focus(message);
}

onUnauthorized(() => {
  if (session) leave(SESSION_ENDED);
});

signOutButton.addEventListener('click', () => {
  void busy(signOutButton, async () => {
    try {
      await signOut();
      leave();
    } catch (error) {
      setText(sessionAlert, `Could not sign out: ${errorMessage(error)}`);
      sessionAlert.hidden = false;
    }
  });
});

async function start(): Promise<void> {
  try {
    const current = await getSession();
    if (current) enter(current);
    else leave();
  } catch (error) {
    leave(error instanceof ApiError ? error.message : errorMessage(error));
  }
}

void start();
