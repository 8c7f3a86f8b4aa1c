import {
  createSourceEventStream,
  execute,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
} from 'graphql';
import { SubscriberQueue } from './subscriber-queue';

type Result = ExecutionResult | Promise<ExecutionResult>;

/** Where a subscription's `next` messages go when they skip graphql-ws's per-message loop. */
export interface SubscriptionOutlet {
  /** The graphql-ws subscription id. */
  id: string;
  /** Writes one text frame; `done` once it has left (or could not be sent: socket gone). */
  send(message: string, done: () => void): void;
}

export interface SharedSubscriptionExecutionOptions {
  /**
   * What graphql-ws sends as a `next` message's payload for a result (the server's `onNext`):
   * the directly written messages carry exactly the same.
   */
  present(result: ExecutionResult): unknown;
}

interface Target {
  queue: SubscriberQueue<unknown>;
  /** `{"id":<id>,"type":"next","payload":` */
  prefix: string;
  outlet: SubscriptionOutlet;
  done: () => void;
}

/** One event for the subscribers of one signature, sent together once its result is ready. */
interface Batch {
  event: unknown;
  targets: Target[];
}

/** The subscribers of one signature: batches go out one after another, in event order. */
interface Group {
  tail: Promise<void>;
  /** The batch still taking targets (its result is not sent yet). */
  open: Batch | undefined;
}

/**
 * graphql's `subscribe`, except that an event is executed once per kind of subscriber instead
 * of once per subscriber. The hub hands the same event object to every subscriber of a
 * merchant; subscribers with the same document, operation, variables and principal would each
 * run the same execution on it (resolvers, middlewares, scalar serialisation) and get equal
 * results. Here the first of them runs it and the others get that result: with a thousand
 * dashboards on one merchant, one execution per change instead of a thousand. Results are kept
 * only as long as the event object lives.
 *
 * A hub subscription (its stream is a `SubscriberQueue`) on a socket with a registered outlet
 * goes further: its `next` messages skip graphql-ws's per-message loop (several promises, a
 * validation and a whole-message JSON.stringify per subscriber) and are written straight to the
 * socket, the payload serialised once per event and signature. The bytes are the ones
 * graphql-ws would send (`{"id","type":"next","payload"}` with the `present`ed result), in the
 * same order, each once; the queue's bound now counts messages written but not yet flushed to
 * the socket, so a subscriber that stops reading is still cut off after `limit`. graphql-ws
 * still owns the subscription: the queue is the operation's iterator, so `complete` from the
 * client, a closed socket, the end of the stream and its error go through it as before.
 */
export class SharedSubscriptionExecution {
  private readonly results = new WeakMap<object, Map<string, Result>>();
  private readonly documentIds = new WeakMap<DocumentNode, number>();
  private nextDocumentId = 0;
  private readonly outlets = new WeakMap<object, SubscriptionOutlet>();
  private readonly groups = new Map<string, Group>();

  constructor(private readonly options: SharedSubscriptionExecutionOptions) {}

  /** The socket and subscription id behind an operation's context (graphql-ws `context`). */
  registerOutlet(contextValue: object, outlet: SubscriptionOutlet): void {
    this.outlets.set(contextValue, outlet);
  }

  /** For graphql-ws's `subscribe` option. */
  readonly subscribe = async (
    args: ExecutionArgs,
  ): Promise<AsyncGenerator<ExecutionResult, void, void> | ExecutionResult> => {
    const source = await createSourceEventStream(args);
    if (!isAsyncIterable(source)) return source;
    const signature = this.signature(args);
    const context = args.contextValue;
    const outlet =
      typeof context === 'object' && context !== null ? this.outlets.get(context) : undefined;
    if (signature !== undefined && outlet && source instanceof SubscriberQueue) {
      this.deliverDirectly(source as SubscriberQueue<unknown>, outlet, signature, args);
      // Yields nothing (the messages go out directly); ends, or fails, as the stream does.
      return source as unknown as AsyncGenerator<ExecutionResult, void, void>;
    }
    return mapEvents(source[Symbol.asyncIterator](), (event) =>
      this.resultFor(event, signature, args),
    );
  };

  /**
   * What an execution depends on besides the event: the document (parsed documents are shared
   * by the document cache, so the same query text is the same object), the operation, the
   * variables, and who is asking (the only part of the context resolvers decide on).
   */
  private signature(args: ExecutionArgs): string | undefined {
    const context = args.contextValue as { principal?: unknown } | undefined;
    if (args.fieldResolver || args.typeResolver || args.subscribeFieldResolver) return undefined;
    let id = this.documentIds.get(args.document);
    if (id === undefined) {
      this.nextDocumentId += 1;
      id = this.nextDocumentId;
      this.documentIds.set(args.document, id);
    }
    return JSON.stringify([
      id,
      args.operationName ?? null,
      args.variableValues ?? null,
      context?.principal ?? null,
    ]);
  }

  private resultFor(event: unknown, signature: string | undefined, args: ExecutionArgs): Result {
    if (signature === undefined || typeof event !== 'object' || event === null) {
      return execute({ ...args, rootValue: event });
    }
    let byEvent = this.results.get(event);
    if (!byEvent) {
      byEvent = new Map();
      this.results.set(event, byEvent);
    }
    let result = byEvent.get(signature);
    if (result === undefined) {
      result = execute({ ...args, rootValue: event });
      byEvent.set(signature, result);
    }
    return result;
  }

  private deliverDirectly(
    queue: SubscriberQueue<unknown>,
    outlet: SubscriptionOutlet,
    signature: string,
    args: ExecutionArgs,
  ): void {
    const prefix = `{"id":${JSON.stringify(outlet.id)},"type":"next","payload":`;
    queue.attach((event, done) =>
      this.enqueue(signature, args, event, { queue, prefix, outlet, done }),
    );
  }

  /**
   * Adds a subscriber to the batch of its signature for this event. Events reach a signature's
   * subscribers in publish order, so consecutive pushes of one event join one batch, and
   * batches are chained: each is sent after the one before, whenever its result is ready.
   */
  private enqueue(signature: string, args: ExecutionArgs, event: unknown, target: Target): void {
    let group = this.groups.get(signature);
    if (!group) {
      group = { tail: Promise.resolve(), open: undefined };
      this.groups.set(signature, group);
    }
    let batch = group.open;
    if (!batch || batch.event !== event) {
      const current: Batch = { event, targets: [] };
      const owner = group;
      batch = current;
      owner.open = current;
      const result = this.resultFor(event, signature, args);
      const sent: Promise<void> = owner.tail
        .then(() => result)
        .then(
          (value) => {
            if (owner.open === current) owner.open = undefined;
            this.send(current, value);
          },
          (error: unknown) => {
            if (owner.open === current) owner.open = undefined;
            this.abort(current, error);
          },
        )
        .then(() => {
          // Nothing queued behind this batch: the signature's chain can go.
          if (owner.tail === sent && this.groups.get(signature) === owner) {
            this.groups.delete(signature);
          }
        });
      owner.tail = sent;
    }
    batch.targets.push(target);
  }

  /**
   * Writes the batch's messages, all at once: the hub yields to I/O between events (by
   * messages published), and a batch sent within that turn keeps what waits per subscriber
   * as small as graphql-ws's own loop did (a catch-up cannot run ahead of the sockets).
   */
  private send(batch: Batch, result: ExecutionResult): void {
    let payload: string;
    try {
      payload = JSON.stringify(this.options.present(result));
    } catch (error) {
      this.abort(batch, error);
      return;
    }
    for (const target of batch.targets) {
      if (!target.queue.open) target.done();
      else target.outlet.send(`${target.prefix}${payload}}`, target.done);
    }
  }

  /** The execution itself failed: each of these subscriptions ends with the error. */
  private abort(batch: Batch, error: unknown): void {
    for (const target of batch.targets) {
      target.done();
      target.queue.fail(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function'
  );
}

/** graphql's own `mapAsyncIterator` (graphql/execution/mapAsyncIterator), which it does not export. */
function mapEvents(
  iterator: AsyncIterator<unknown>,
  callback: (event: unknown) => Result,
): AsyncGenerator<ExecutionResult, void, void> {
  async function mapResult(
    result: IteratorResult<unknown>,
  ): Promise<IteratorResult<ExecutionResult, void>> {
    if (result.done) return { value: undefined, done: true };
    try {
      return { value: await callback(result.value), done: false };
    } catch (error) {
      if (typeof iterator.return === 'function') {
        try {
          await iterator.return();
        } catch {
          // ignore, as graphql does
        }
      }
      throw error;
    }
  }
  const mapped: AsyncGenerator<ExecutionResult, void, void> = {
    async next() {
      return mapResult(await iterator.next());
    },
    async return() {
      return typeof iterator.return === 'function'
        ? mapResult(await iterator.return())
        : { value: undefined, done: true };
    },
    async throw(error?: unknown) {
      if (typeof iterator.throw === 'function') return mapResult(await iterator.throw(error));
      throw error;
    },
    [Symbol.asyncIterator]() {
      return mapped;
    },
    // What a native async generator does on `await using` (Node 24's generators have it, and
    // @types/node 24 requires it of AsyncGenerator): end the source as `return()` does.
    async [Symbol.asyncDispose]() {
      await mapped.return();
    },
  };
  return mapped;
}
