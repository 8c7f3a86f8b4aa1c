import { DomainError, ErrorCode } from '../../domain/errors';

export const DEFAULT_SUBSCRIBER_QUEUE_LIMIT = 1000;

/** Why a subscription was cut off: its client fell too far behind. */
export function subscriberTooSlow(limit: number): DomainError {
  return new DomainError(
    ErrorCode.ServiceUnavailable,
    `This subscription fell more than ${limit} messages behind and was ended; subscribe again ` +
      'and recover missed changes with deposits(filter: {updatedSince})',
  );
}

export interface SubscriberQueueOptions {
  /** Messages that may wait undelivered; one more ends the subscription. */
  limit: number;
  /** Called once, however the queue ends (completed, returned, overflowed): unregister here. */
  onEnd: () => void;
  /** Called once when the queue overflows, after `onEnd`: close the client's socket here. */
  onOverflow?: (error: DomainError) => void;
}

/**
 * Where an attached queue hands its messages (see `attach`). `done` is called once the message
 * has left (written to the socket, or dropped because the socket is gone): until then it
 * counts as waiting undelivered.
 */
export type QueueSink<T> = (value: T, done: () => void) => void;

type Waiter<T> = {
  resolve: (result: IteratorResult<T>) => void;
  reject: (error: unknown) => void;
};

/**
 * One subscriber's undelivered messages, as the async iterator graphql-ws pulls from.
 * Publishing only appends and never waits for a socket. When more than `limit` messages wait
 * (the client stopped reading, or reads slower than events arrive), the queue drops them and
 * fails: one slow or dead client can neither hold up the others nor grow the gateway's memory.
 */
export class SubscriberQueue<T> implements AsyncIterableIterator<T> {
  private buffered: T[] = [];
  private waiter: Waiter<T> | undefined;
  private state: 'open' | 'ended' | 'failed' = 'open';
  private failure: Error | undefined;
  private sink: QueueSink<T> | undefined;
  /** Attached: messages handed to the sink whose `done` has not come yet. */
  private outstanding = 0;

  constructor(private readonly options: SubscriberQueueOptions) {}

  get open(): boolean {
    return this.state === 'open';
  }

  /** Hands a message over; false when the queue has ended (or ends now, overflowing). */
  push(value: T): boolean {
    if (this.state !== 'open') return false;
    if (this.sink) {
      if (this.outstanding >= this.options.limit) {
        this.overflow();
        return false;
      }
      this.deliver(value);
      return true;
    }
    if (this.waiter) {
      const waiter = this.waiter;
      this.waiter = undefined;
      waiter.resolve({ value, done: false });
      return true;
    }
    if (this.buffered.length >= this.options.limit) {
      this.overflow();
      return false;
    }
    this.buffered.push(value);
    return true;
  }

  /**
   * From now on, messages go straight to `sink` as they are pushed (those already waiting
   * first, in order) instead of through `next()`, which then only reports how the stream ends.
   * The bound is the same: more than `limit` messages handed over and not yet `done` ends it.
   */
  attach(sink: QueueSink<T>): void {
    if (this.state !== 'open' || this.sink) return;
    this.sink = sink;
    const waiting = this.buffered;
    this.buffered = [];
    for (const value of waiting) this.deliver(value);
  }

  /** Ends the stream with this error (reported once by `next()`), without `onOverflow`. */
  fail(error: Error): void {
    if (this.state !== 'open') return;
    this.failure = error;
    this.finish('failed');
  }

  /** Ends the stream without an error (the gateway is stopping); undelivered messages are dropped. */
  end(): void {
    this.finish('ended');
  }

  next(): Promise<IteratorResult<T>> {
    if (this.buffered.length > 0) {
      return Promise.resolve({ value: this.buffered.shift() as T, done: false });
    }
    if (this.state === 'failed' && this.failure) {
      // Reported once; the stream is over after that.
      const failure = this.failure;
      this.failure = undefined;
      return Promise.reject(failure);
    }
    if (this.state !== 'open') return Promise.resolve({ value: undefined, done: true });
    if (this.waiter) return Promise.reject(new Error('next() called while a next() is pending'));
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  /** The consumer is done (client completed the operation, or its socket closed). */
  return(): Promise<IteratorResult<T>> {
    this.finish('ended');
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(): Promise<IteratorResult<T>> {
    return this.return();
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }

  private deliver(value: T): void {
    this.outstanding += 1;
    let left = false;
    this.sink!(value, () => {
      if (left) return;
      left = true;
      this.outstanding -= 1;
    });
  }

  private overflow(): void {
    const error = subscriberTooSlow(this.options.limit);
    this.failure = error;
    this.finish('failed');
    this.options.onOverflow?.(error);
  }

  private finish(state: 'ended' | 'failed'): void {
    if (this.state !== 'open') return;
    this.state = state;
    this.buffered = [];
    const waiter = this.waiter;
    this.waiter = undefined;
    if (waiter) {
      if (state === 'failed' && this.failure) {
        const failure = this.failure;
        this.failure = undefined;
        waiter.reject(failure);
      } else {
        waiter.resolve({ value: undefined, done: true });
      }
    }
    this.options.onEnd();
  }
}
