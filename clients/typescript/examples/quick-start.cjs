// From `npm start`'s printed API key to a SETTLED deposit and a verified webhook, through the
// typed client. In another terminal, while `npm start` runs:
//
//   npm run client:build
//   ONRAMP_API_KEY=sk_test_... node clients/typescript/examples/quick-start.cjs
//
// In your own project, after `npm install @ngn-onramp/client`, the same file runs as is
// (this is quick-start.mjs in CommonJS).
'use strict';
const { createServer } = require('node:http');
const {
  createOnrampClient,
  setWebhookEndpoint,
  unwrap,
  verifyWebhook,
} = require('@ngn-onramp/client');

async function main() {
  const onramp = createOnrampClient({
    baseUrl: process.env.ONRAMP_URL ?? 'http://localhost:4000',
    secretKey: process.env.ONRAMP_API_KEY,
  });

  // 1. Receive webhooks on this machine (the sandbox delivers to loopback URLs) and verify each.
  let secret = '';
  let onSettled = () => {};
  const settledWebhook = new Promise((resolve) => (onSettled = resolve));
  const receiver = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      try {
        // The raw body as received, the webhook-* headers, and the endpoint's whsec_ secret.
        const event = verifyWebhook(Buffer.concat(chunks), request.headers, secret);
        console.log(`webhook ${event.event} verified (${event.event_id})`);
        response.writeHead(204).end();
        if (event.event === 'deposit.settled') onSettled(event);
      } catch (error) {
        console.log(`webhook refused: ${error.message}`);
        response.writeHead(400).end();
      }
    });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const endpoint = await setWebhookEndpoint(
    onramp,
    `http://127.0.0.1:${receiver.address().port}/webhooks`,
  );
  secret = endpoint.secret;

  // 2. A firm quote, then an onramp at that rate: a virtual bank account for the user to pay.
  const rate = await unwrap(
    onramp.GET('/v1/rates', { params: { query: { from: 'NGN', to: 'USDC' } } }),
  );
  console.log(`rate ${rate.rate_id}: ${rate.rate} NGN per USDC`);
  const created = await unwrap(
    onramp.POST('/v1/onramp', {
      body: {
        type: 'EPHEMERAL',
        user: { email: 'ada@example.com' },
        rate_id: rate.rate_id,
        settlement: { mode: 'MERCHANT_BALANCE' },
      },
      // A retry with the same key replays the first answer instead of creating a second onramp.
      idempotencyKey: `quick-start-${rate.rate_id}`,
    }),
  );
  const account = created.virtual_account.account_number;
  console.log(`onramp ${created.onramp_id}: pay into account ${account}`);

  // 3. The sandbox plays the bank: 50,000 NGN arrive in that account.
  let deposit = await unwrap(
    onramp.POST('/v1/sandbox/deposits', {
      body: { account_number: account, amount_ngn: '50000.00' },
    }),
  );

  // 4. Poll the deposit until it settles (the webhook below says the same without polling).
  while (deposit.status === 'PENDING_FX' || deposit.status === 'PENDING_WITHDRAWAL') {
    await new Promise((resolve) => setTimeout(resolve, 500));
    deposit = await unwrap(
      onramp.GET('/v1/deposits/{id}', { params: { path: { id: deposit.deposit_id } } }),
    );
  }
  console.log(`deposit ${deposit.deposit_id}: ${deposit.status}, ${deposit.amount_asset} USDC`);

  // 5. Wait for the deposit.settled webhook (verified above), then stop listening.
  const timeout = setTimeout(() => {
    console.log('no deposit.settled webhook within 30 s');
    process.exit(1);
  }, 30_000);
  const settled = await settledWebhook;
  clearTimeout(timeout);
  console.log(`deposit.settled webhook for ${settled.data.deposit_id}: ${settled.data.status}`);
  receiver.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
