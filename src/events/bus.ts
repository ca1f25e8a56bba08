/** The event bus: domain changes published through PostgreSQL NOTIFY and delivered to subscribers in every replica. */
import { randomUUID } from 'node:crypto';
import { Prisma, type Database, type RawExecutor, type RawQuerier } from '../db/database.js';

/**
 * Where a message holds the id of a row its statement makes, until the statement puts it there (Announcement.ids): a
 * string no JSON of a value can hold (an escaped NUL right after a quote), replaced with the id in the same statement.
 */
export function rowIdSlot(name: string): string {
  return `\u0000row-id:${name}`;
}

export interface EventBusOptions {
  channel?: string;
  logger?: { warn(obj: object, msg?: string): void };
}

interface Envelope {
  topic: string;
  payload: unknown;
  origin: string;
  /** Its number among the messages of its origin: the publisher waits for it to come back (delivered()). */
  seq: number;
}

type Handler = (payload: unknown) => void;

/** A message a statement sends about the change it makes (EventBus.announcing). */
export interface Announcement {
  topic: string;
  payload: unknown;
  /** For each `rowIdSlot(name)` the payload holds, the SQL expression (over the statement's row) of the id that goes there. */
  ids?: Readonly<Record<string, Prisma.Sql>>;
}

/** A received message and the handlers it is being handed to (those subscribed when it arrived). */
interface Delivery {
  envelope: Envelope;
  handlers: Handler[];
  next: number;
}

/** PostgreSQL rejects NOTIFY payloads of 8000 bytes or more; keep a margin below it. */
export const MAX_MESSAGE_BYTES = 7900;
/**
 * How long delivered() waits for a message to come back before giving up (a listener reconnecting, a message
 * whose transaction rolled back): the write then answers anyway, as it would without the wait.
 */
const DELIVERY_WAIT_MS = 2000;
/** How long the numbers of messages heard back are remembered for a delivered() that asks after they arrived. */
const HEARD_MEMORY_MS = 30_000;
/** Events an iterate() consumer may fall behind by before the oldest are dropped. */
export const ITERATOR_BUFFER_LIMIT = 1000;
/**
 * Handlers called, and turns granted, per turn of the event loop while fanning out: each woken subscription
 * executes its GraphQL operation (about 20 µs for a small selection, measured with test/bench/fanout.ts), so a
 * chunk stays within a few milliseconds and requests go on being answered between chunks.
 */
const DELIVERY_CHUNK = 100;

/**
 * One value per delivered message, computed by the first subscriber that asks and shared by the others: every
 * handler of a message is handed the same payload object, so the value lives exactly as long as a subscriber
 * still holds the message. For what does not depend on the viewer (the row an event names), so that N
 * subscribers cost one query.
 */
export function perMessage<M extends object, A extends unknown[], V>(compute: (message: M, ...args: A) => V): (message: M, ...args: A) => V {
  const values = new WeakMap<M, V>();
  return (message, ...args) => {
    if (values.has(message)) return values.get(message) as V;
    const value = compute(message, ...args);
    values.set(message, value);
    return value;
  };
}

export class EventBus {
  /** Sent with every message so a replica's logs can tell where an event came from. */
  readonly id = randomUUID();
  private readonly channel: string;
  private readonly logger: { warn(obj: object, msg?: string): void };
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly iterators = new Set<() => void>();
  /** Messages being handed out, oldest first: one is finished before the next starts, so order holds. */
  private readonly inbox: Delivery[] = [];
  private delivering = false;
  /** Callers waiting in turn() for their share of an event-loop turn. */
  private readonly turns: Array<() => void> = [];
  private unlisten: (() => Promise<void>) | undefined;
  private starting: Promise<void> | undefined;
  private sequence = 0;
  /** Own messages heard back: sequence number → when. */
  private readonly heard = new Map<number, number>();
  private readonly awaiting = new Map<number, Set<() => void>>();

  constructor(
    private readonly db: Database,
    options: EventBusOptions = {},
  ) {
    this.channel = options.channel ?? 'gitlab_events';
    this.logger = options.logger ?? { warn: (obj, msg) => console.warn(msg ?? 'event bus', obj) };
  }

  /** Must resolve before events published anywhere (this process included) reach this bus's subscribers. */
  start(): Promise<void> {
    this.starting ??= this.db.listen(this.channel, (raw) => this.receive(raw)).then(
      (unlisten) => {
        this.unlisten = unlisten;
      },
      (err: unknown) => {
        // Let a later start() try again instead of replaying this failure forever.
        this.starting = undefined;
        throw err;
      },
    );
    return this.starting;
  }

  /** Stops listening and ends every open iterate() so GraphQL subscriptions complete instead of hanging. */
  async stop(): Promise<void> {
    await this.starting;
    this.starting = undefined;
    const unlisten = this.unlisten;
    this.unlisten = undefined;
    await unlisten?.();
    for (const end of [...this.iterators]) end();
  }

  /**
   * Subscribers, local ones included, hear the event only through the NOTIFY loop-back: delivering
   * locally at once would announce changes of a transaction that may still roll back, and would
   * order local events differently from the other replicas. Passing `tx` makes the event fire on commit.
   * Topics carry small payloads (ids, statuses); a message over MAX_MESSAGE_BYTES is refused, never truncated.
   * Resolves to the message's number, for delivered().
   */
  async publish(topic: string, payload: unknown, tx?: RawExecutor | RawQuerier): Promise<number> {
    const { seqs, notify } = this.announcing([{ topic, payload }]);
    const client = tx ?? this.db.prisma;
    if ('$executeRaw' in client) await client.$executeRaw`SELECT * FROM ${notify}`;
    else await client.$queryRaw`SELECT * FROM ${notify}`;
    return seqs[0];
  }

  /**
   * Messages for a statement that makes a change and announces it itself, so the write is one round trip (and
   * atomic without a transaction): `notify` is a FROM item, joined `CROSS JOIN LATERAL ${notify}` to the one row
   * the statement makes, that sends the messages in the order given, each with the ids of rows it makes put in
   * (Announcement.ids). The numbers are for delivered(), once the statement has succeeded.
   */
  announcing(messages: readonly Announcement[]): { notify: Prisma.Sql; seqs: number[] } {
    const seqs: number[] = [];
    const calls = messages.map(({ topic, payload, ids = {} }, i) => {
      const slots = Object.entries(ids);
      // Each slot's quoted placeholder becomes a number of up to 20 characters: the message may grow by that much.
      const { seq, message } = this.envelope(topic, payload, 20 * slots.length);
      seqs.push(seq);
      const filled = slots.reduce((text, [name, id]) => Prisma.sql`replace(${text}, ${JSON.stringify(rowIdSlot(name))}, (${id})::text)`, Prisma.sql`${message}`);
      return Prisma.sql`pg_notify(${this.channel}, ${filled}) AS ${Prisma.raw(`"m${i}"`)}`;
    });
    // One subquery's select list, evaluated left to right: the messages go out in their order.
    return { notify: Prisma.sql`(SELECT ${Prisma.join(calls)}) AS notified`, seqs };
  }

  /** The message to NOTIFY and its number; refused over MAX_MESSAGE_BYTES (less `spare` bytes it may still grow by). */
  private envelope(topic: string, payload: unknown, spare = 0): { seq: number; message: string } {
    const seq = ++this.sequence;
    const envelope: Envelope = { topic, payload, origin: this.id, seq };
    const message = JSON.stringify(envelope);
    const bytes = Buffer.byteLength(message, 'utf8') + spare;
    if (bytes > MAX_MESSAGE_BYTES) {
      throw new Error(
        `Event "${topic}" is ${bytes} bytes once encoded; NOTIFY allows at most ${MAX_MESSAGE_BYTES}. Publish ids and let subscribers load the rest.`,
      );
    }
    return { seq, message };
  }

  /**
   * Resolves once this process's subscribers have handled the messages it published as `seqs` (their NOTIFY came
   * back), or after DELIVERY_WAIT_MS. A request that changed something waits for this before it answers, so its
   * caller's next request sees every cache and subscription of this replica already told of the change.
   */
  delivered(seqs: readonly number[], timeoutMs = DELIVERY_WAIT_MS): Promise<void> {
    const pending = seqs.filter((seq) => !this.heard.has(seq));
    if (!pending.length || !this.unlisten) return Promise.resolve();
    return new Promise((resolve) => {
      let left = pending.length;
      const done = () => {
        clearTimeout(timer);
        for (const seq of pending) this.awaiting.get(seq)?.delete(arrived);
        resolve();
      };
      const arrived = () => --left === 0 && done();
      const timer = setTimeout(done, timeoutMs);
      timer.unref();
      for (const seq of pending) {
        let waiters = this.awaiting.get(seq);
        if (!waiters) this.awaiting.set(seq, (waiters = new Set()));
        waiters.add(arrived);
      }
    });
  }

  subscribe(topic: string, handler: (payload: unknown) => void): () => void {
    let set = this.handlers.get(topic);
    if (!set) {
      set = new Set();
      this.handlers.set(topic, set);
    }
    set.add(handler);
    return () => {
      const current = this.handlers.get(topic);
      current?.delete(handler);
      if (current?.size === 0) this.handlers.delete(topic);
    };
  }

  /**
   * Payloads are not validated: `T` is what the topic's publishers send. A slow consumer loses the
   * oldest events beyond ITERATOR_BUFFER_LIMIT rather than growing memory without bound. Several topics are
   * heard in the one order their messages arrived in (a job's log, then the status that ended it).
   */
  iterate<T>(topics: string | readonly string[], filter?: (payload: T) => boolean): AsyncIterableIterator<T> {
    const buffer: T[] = [];
    const waiting: Array<(result: IteratorResult<T>) => void> = [];
    let done = false;
    let dropped = 0;

    const finish = (): void => {
      if (done) return;
      done = true;
      unsubscribe();
      this.iterators.delete(finish);
      buffer.length = 0;
      for (const resolve of waiting.splice(0)) resolve({ value: undefined, done: true });
    };

    const topicList = typeof topics === 'string' ? [topics] : topics;
    const topic = topicList.join(',');
    const handler = (raw: unknown): void => {
      // A message being handed out in chunks may reach an iterator that ended meanwhile.
      if (done) return;
      const payload = raw as T;
      if (filter && !filter(payload)) return;
      const resolve = waiting.shift();
      if (resolve) {
        resolve({ value: payload, done: false });
        return;
      }
      buffer.push(payload);
      if (buffer.length > ITERATOR_BUFFER_LIMIT) {
        buffer.shift();
        dropped += 1;
        if (dropped === 1 || dropped % ITERATOR_BUFFER_LIMIT === 0) {
          this.logger.warn({ topic, dropped }, 'event bus: subscriber is too slow, dropping its oldest events');
        }
      }
    };
    const unsubscribes = topicList.map((t) => this.subscribe(t, handler));
    const unsubscribe = () => unsubscribes.forEach((u) => u());
    this.iterators.add(finish);

    const iterator: AsyncIterableIterator<T> = {
      next: () => {
        if (buffer.length > 0) return Promise.resolve({ value: buffer.shift() as T, done: false });
        if (done) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => waiting.push(resolve));
      },
      return: () => {
        finish();
        return Promise.resolve({ value: undefined, done: true });
      },
      throw: (error: unknown) => {
        finish();
        return Promise.reject(error);
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  private receive(raw: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(raw) as Envelope;
    } catch {
      this.logger.warn({ channel: this.channel, raw: raw.slice(0, 200) }, 'event bus: ignoring a notification that is not JSON');
      return;
    }
    if (typeof envelope !== 'object' || envelope === null || typeof envelope.topic !== 'string') {
      this.logger.warn({ channel: this.channel, raw: raw.slice(0, 200) }, 'event bus: ignoring a notification without a topic');
      return;
    }
    // A copy, so a handler that unsubscribes (an iterator's return()) does not disturb the delivery.
    this.inbox.push({ envelope, handlers: [...(this.handlers.get(envelope.topic) ?? [])], next: 0 });
    if (!this.delivering) this.deliver();
  }

  /** Notes an own message as delivered here, after its handlers ran, and wakes whoever waits for it. */
  private heardBack(seq: number): void {
    const now = Date.now();
    this.heard.set(seq, now);
    for (const [old, at] of this.heard) {
      if (now - at < HEARD_MEMORY_MS) break;
      this.heard.delete(old);
    }
    const waiters = this.awaiting.get(seq);
    this.awaiting.delete(seq);
    for (const wake of waiters ?? []) wake();
  }

  /**
   * Hands the inbox's messages to their handlers in order, DELIVERY_CHUNK handlers per turn of the event loop,
   * so that a message with thousands of subscribers never stalls the requests in between.
   */
  private deliver(): void {
    this.delivering = true;
    let budget = DELIVERY_CHUNK;
    for (let delivery = this.inbox[0]; delivery; delivery = this.inbox[0]) {
      const { envelope, handlers } = delivery;
      while (delivery.next < handlers.length) {
        if (budget-- === 0) {
          setImmediate(() => this.deliver());
          return;
        }
        const handler = handlers[delivery.next++];
        try {
          handler(envelope.payload);
        } catch (err) {
          // One failing subscriber must not keep the event from the others.
          this.logger.warn({ err, topic: envelope.topic, origin: envelope.origin }, 'event bus: subscriber threw');
        }
      }
      this.inbox.shift();
      if (envelope.origin === this.id) this.heardBack(envelope.seq);
    }
    this.delivering = false;
  }

  /**
   * Resolves when the caller may do its share of a fan-out's work (a subscription executing its operation for
   * an event): at most DELIVERY_CHUNK callers per turn of the event loop, first come first served. Work that
   * waits on one shared promise would otherwise resume, for every subscriber at once, in a single turn.
   */
  turn(): Promise<void> {
    return new Promise((resolve) => {
      this.turns.push(resolve);
      if (this.turns.length === 1) setImmediate(this.grantTurns);
    });
  }

  private readonly grantTurns = (): void => {
    for (const resolve of this.turns.splice(0, DELIVERY_CHUNK)) resolve();
    if (this.turns.length > 0) setImmediate(this.grantTurns);
  };
}
