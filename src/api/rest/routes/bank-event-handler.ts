import type { FastifyRequest } from 'fastify';
import type { BankEvent, ReturnNotification } from '../../../adapters/bank/bank-adapter';
import { ProviderUnavailableError, type BankProvider } from '../../../adapters/bank/bank-provider';
import { DomainError, ErrorCode } from '../../../domain/errors';
import type { Services } from '../../../container';
import { UNMATCHED_TRANSFER_SQL } from '../../../deposits';

/** What the notification route answers (200) once the event is recorded. */
export interface NotificationAnswer {
  received: true;
  deposit_id?: string;
  status?: string;
  unmatched?: boolean;
  confirmed?: false;
  ignored?: true;
}

async function isUnmatchedTransfer(request: FastifyRequest, bankReference: string) {
  const rows = await request.em.getConnection().execute(UNMATCHED_TRANSFER_SQL, [bankReference]);
  return rows.length > 0;
}

/**
 * The outcome of one of our returns: applied by the same code as the runner's polled answer
 * (once, whichever comes first). A reference we never sent is acknowledged, not 404: the bank
 * would retry it forever, and no retry can make it ours (attempts exist before we call it).
 */
async function returnNotified(
  services: Services,
  request: FastifyRequest,
  event: ReturnNotification,
): Promise<NotificationAnswer> {
  const applied = await services.returnOutcomes.notified(request.em, event);
  if (applied.kind === 'unknown') {
    request.log.warn(
      { reference: event.reference, event: event.type },
      'return notification for an unknown reference',
    );
    return { received: true, unmatched: true };
  }
  request.log.info(
    {
      reference: event.reference,
      depositId: applied.depositId,
      applied: applied.kind === 'applied',
    },
    'bank return notification received',
  );
  return { received: true, deposit_id: applied.depositId, status: applied.status };
}

async function transferReceived(
  services: Services,
  request: FastifyRequest,
  provider: BankProvider,
  event: Extract<BankEvent, { type: 'transfer.received' }>,
): Promise<NotificationAnswer> {
  const bankReference = event.transfer.bankReference;
  let outcome;
  try {
    outcome = await services.bankIntake.receive(request.em, provider, event.transfer, {
      fromProviderApi: false,
    });
  } catch (error) {
    // The provider's API could not be asked: 503, so the provider sends it again later.
    if (error instanceof ProviderUnavailableError) {
      throw new DomainError(
        ErrorCode.ServiceUnavailable,
        `The ${provider.name} API could not confirm this transfer now; retry later`,
      );
    }
    throw error;
  }
  const log = { provider: provider.name, bankReference };
  if (outcome.kind === 'not_confirmed') {
    request.log.warn({ ...log, reason: outcome.reason }, 'bank transfer NOT confirmed by provider');
    return { received: true, confirmed: false };
  }
  if (outcome.kind === 'unknown_account' || outcome.kind === 'wrong_provider') {
    // Not an account this provider opened for us: 4xx in the error shape, nothing recorded.
    // A provider that really sent it retries; the sweep, reading the provider's own list,
    // keeps a real transfer to an account we never recorded as unmatched.
    request.log.warn(
      { ...log, holder: outcome.kind === 'wrong_provider' ? outcome.holder : null },
      'provider notification for an account this provider did not open for us',
    );
    throw new DomainError(
      ErrorCode.NotFound,
      `No account ${event.transfer.accountNumber} was opened with ${provider.name} for this service`,
    );
  }
  if (outcome.kind === 'unmatched') {
    request.log.warn(
      { ...log, created: outcome.created },
      'bank transfer to an account number no onramp held',
    );
    return { received: true, unmatched: true };
  }
  request.log.info(
    { ...log, depositId: outcome.deposit.id, created: outcome.created },
    'bank transfer received',
  );
  return { received: true, deposit_id: outcome.deposit.id, status: outcome.deposit.status };
}

async function transferReversed(
  services: Services,
  request: FastifyRequest,
  bankReference: string,
): Promise<NotificationAnswer> {
  try {
    const { deposit, reversed } = await services.reversals.reverse(request.em, bankReference);
    request.log.info({ bankReference, depositId: deposit.id, reversed }, 'bank reversal received');
    return { received: true, deposit_id: deposit.id, status: deposit.status };
  } catch (error) {
    // A reversal of a transfer we kept as unmatched: nothing to move in a deposit; the
    // operator returns or reconciles unmatched transfers by hand.
    if (
      error instanceof DomainError &&
      error.code === ErrorCode.NotFound &&
      (await isUnmatchedTransfer(request, bankReference))
    ) {
      request.log.warn(
        { bankReference },
        'bank reversed an unmatched transfer; reconcile it by hand',
      );
      return { received: true, unmatched: true };
    }
    // Unknown reference: 404, so the bank retries; a reversal that overtook its transfer's
    // notification then applies once the transfer is recorded.
    throw error;
  }
}

/** Records one verified notification; answers only after its effect is committed. */
export function handleBankEvent(
  services: Services,
  request: FastifyRequest,
  provider: BankProvider,
  event: BankEvent,
): Promise<NotificationAnswer> {
  switch (event.type) {
    case 'transfer.received':
      return transferReceived(services, request, provider, event);
    case 'transfer.return_completed':
    case 'transfer.return_failed':
      return returnNotified(services, request, event);
    case 'transfer.reversed':
      return transferReversed(services, request, event.bankReference);
    case 'ignored':
      request.log.info({ provider: provider.name, reason: event.reason }, 'notification ignored');
      return Promise.resolve({ received: true, ignored: true });
  }
}
