/** The event bus against a real database: NOTIFY delivery, transactions, replicas, iterators. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma, openDatabase, type Database } from '../../src/db/database.js';
import { EventBus, ITERATOR_BUFFER_LIMIT, MAX_MESSAGE_BYTES, rowIdSlot } from '../../src/events/bus.js';
import { freshDatabase, type FreshDatabase } from '../support/db.js';
import { eventually } from '../support/wait.js';

let fresh: FreshDatabase;
let db: Database;
const buses: EventBus[] = [];

beforeAll(async () => {
  fresh = await freshDatabase('bus');
  db = fresh.db;
}, 60_000);

afterAll(async () => {
  for (const bus of buses) await bus.stop();
  await fresh?.cleanup();
});

async function startedBus(database: Database = db, warnings: object[] = []): Promise<EventBus> {
  // A channel per bus keeps the tests of this file from hearing each other's events.
  const channel = `test_events_${Math.random().toString(36).slice(2, 10)}`;
  const bus = new EventBus(database, { channel, logger: { warn: (obj) => warnings.push(obj) } });
  await bus.start();
  buses.push(bus);
  return bus;
}

const waitFor = (check: () => boolean) => eventually(check, 5000, 5);

/** Notifications arrive in commit order, so once a later marker is heard, anything earlier has been too. */
async function flush(bus: EventBus): Promise<void> {
  let heard = false;
  const unsubscribe = bus.subscribe('test.marker', () => {
    heard = true;
  });
  await bus.publish('test.marker', {});
  await waitFor(() => heard);
  unsubscribe();
}

describe('EventBus', () => {
  it('delivers each published payload to a local subscriber exactly once', async () => {
    const bus = await startedBus();
    const received: unknown[] = [];
    bus.subscribe('pipeline.updated', (payload) => received.push(payload));
    await bus.publish('pipeline.updated', { id: 1, status: 'running' });
    await bus.publish('pipeline.updated', { id: 2, status: 'success' });
    await bus.publish('other.topic', { id: 3 });
    await flush(bus);
    expect(received).toEqual([
      { id: 1, status: 'running' },
      { id: 2, status: 'success' },
    ]);
  });

  it('stops delivering to a subscriber after it unsubscribes', async () => {
    const bus = await startedBus();
    const kept: unknown[] = [];
    const removed: unknown[] = [];
    bus.subscribe('job.done', (payload) => kept.push(payload));
    const unsubscribe = bus.subscribe('job.done', (payload) => removed.push(payload));
    await bus.publish('job.done', 1);
    await flush(bus);
    unsubscribe();
    await bus.publish('job.done', 2);
    await flush(bus);
    expect(kept).toEqual([1, 2]);
    expect(removed).toEqual([1]);
  });

  it('keeps delivering to other subscribers when one throws', async () => {
    const warnings: object[] = [];
    const bus = await startedBus(db, warnings);
    const received: unknown[] = [];
    bus.subscribe('x', () => {
      throw new Error('subscriber bug');
    });
    bus.subscribe('x', (payload) => received.push(payload));
    await bus.publish('x', 'hello');
    await flush(bus);
    expect(received).toEqual(['hello']);
    expect(warnings).toHaveLength(1);
  });

  it('does not deliver an event published in a transaction that rolls back', async () => {
    const bus = await startedBus();
    const received: unknown[] = [];
    bus.subscribe('pipeline.canceled', (payload) => received.push(payload));
    await expect(
      db.prisma.$transaction(async (tx) => {
        await bus.publish('pipeline.canceled', { id: 'rolled-back' }, tx);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await db.prisma.$transaction(async (tx) => {
      await bus.publish('pipeline.canceled', { id: 'committed' }, tx);
      // Nothing is delivered before commit.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(received).toEqual([]);
    });
    await flush(bus);
    expect(received).toEqual([{ id: 'committed' }]);
  });

  it('announces from the statement that makes the change: in order, with the ids it makes, or nothing when it fails', async () => {
    const bus = await startedBus();
    await db.prisma.$executeRawUnsafe('CREATE TABLE IF NOT EXISTS "bus_rows" ("id" serial PRIMARY KEY, "note" text UNIQUE)');
    const received: unknown[] = [];
    for (const topic of ['row.first', 'row.inserted']) bus.subscribe(topic, (payload) => received.push([topic, payload]));
    // A value that spells a placeholder's text stays as it is.
    const tricky = `a \\u0000row-id:a "${rowIdSlot('a')}" id`;
    const write = (note: string, tx?: Prisma.TransactionClient) => {
      const { notify, seqs } = bus.announcing([
        { topic: 'row.first', payload: { step: 1 } },
        { topic: 'row.inserted', payload: { note: tricky, nested: { id: 'own' }, id: rowIdSlot('a'), other: rowIdSlot('b') }, ids: { a: Prisma.sql`a."id"`, b: Prisma.sql`b."id"` } },
      ]);
      expect(seqs).toHaveLength(2);
      return (tx ?? db.prisma).$queryRaw<{ a: number; b: number }[]>`
        WITH a AS (INSERT INTO "bus_rows" ("note") VALUES (${note}) RETURNING "id"),
             b AS (INSERT INTO "bus_rows" ("note") VALUES (${`${note}+`}) RETURNING "id")
        SELECT a."id" AS a, b."id" AS b FROM a CROSS JOIN b CROSS JOIN LATERAL ${notify}`;
    };
    const [{ a, b }] = await write('kept');
    await expect(
      db.prisma.$transaction(async (tx) => {
        await write('dropped', tx);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    // A statement that fails (here on the unique note) announces nothing.
    await expect(write('kept')).rejects.toThrow();
    await flush(bus);
    expect(received).toEqual([
      ['row.first', { step: 1 }],
      ['row.inserted', { note: tricky, nested: { id: 'own' }, id: a, other: b }],
    ]);
    const rows = await db.prisma.$queryRaw<{ id: number; note: string }[]>`SELECT "id", "note" FROM "bus_rows" ORDER BY "note"`;
    expect(rows).toEqual([{ id: a, note: 'kept' }, { id: b, note: 'kept+' }]);
  });

  it('refuses a payload too large for NOTIFY', async () => {
    const bus = await startedBus();
    await expect(bus.publish('big', { data: 'x'.repeat(MAX_MESSAGE_BYTES) })).rejects.toThrow(/NOTIFY allows at most/);
    await expect(bus.publish('big', { data: 'é'.repeat(MAX_MESSAGE_BYTES / 2) })).rejects.toThrow(/bytes once encoded/);
    await bus.publish('big', { data: 'x'.repeat(MAX_MESSAGE_BYTES - 200) });
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)('delivers an event published by one replica to a subscriber on another', async () => {
    if (!fresh.databaseUrl) throw new Error('a PostgreSQL run has a database URL');
    const second = await openDatabase({ databaseUrl: fresh.databaseUrl });
    try {
      const channel = `test_replicas_${Math.random().toString(36).slice(2, 10)}`;
      const busA = new EventBus(db, { channel });
      const busB = new EventBus(second, { channel });
      await busA.start();
      await busB.start();
      const onA: unknown[] = [];
      const onB: unknown[] = [];
      busA.subscribe('pipeline.updated', (payload) => onA.push(payload));
      busB.subscribe('pipeline.updated', (payload) => onB.push(payload));
      await busA.publish('pipeline.updated', { id: 7, status: 'canceled' });
      await busB.publish('pipeline.updated', { id: 8, status: 'failed' });
      await flush(busA);
      await flush(busB);
      expect(onA).toEqual([
        { id: 7, status: 'canceled' },
        { id: 8, status: 'failed' },
      ]);
      expect(onB).toEqual(onA);
      await busA.stop();
      await busB.stop();
    } finally {
      await second.close();
    }
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)('listens again after its PostgreSQL connection is killed', async () => {
    if (!fresh.databaseUrl) throw new Error('a PostgreSQL run has a database URL');
    const own = await openDatabase({ databaseUrl: fresh.databaseUrl });
    try {
      const bus = new EventBus(own, { channel: `test_reconnect_${Math.random().toString(36).slice(2, 10)}` });
      await bus.start();
      const heard: unknown[] = [];
      bus.subscribe('test.reconnect', (payload) => heard.push(payload));
      const killed = await own.prisma.$queryRaw<{ pid: number }[]>`
        SELECT pg_terminate_backend(pid) AS pid FROM pg_stat_activity
        WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`;
      expect(killed.length).toBeGreaterThan(0);
      // Notifications sent while it reconnects are lost; keep publishing until one gets through.
      for (let i = 0; i < 100 && heard.length === 0; i++) {
        await bus.publish('test.reconnect', { i });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(heard.length).toBeGreaterThan(0);
      await bus.stop();
    } finally {
      await own.close();
    }
  });

  it('iterates over the filtered events of a topic until return() is called', async () => {
    const bus = await startedBus();
    const iterator = bus.iterate<{ id: number }>('pipeline.updated', (payload) => payload.id % 2 === 1);
    const pending = iterator.next();
    await bus.publish('pipeline.updated', { id: 1 });
    await bus.publish('pipeline.updated', { id: 2 });
    await bus.publish('pipeline.updated', { id: 3 });
    expect(await pending).toEqual({ value: { id: 1 }, done: false });
    expect(await iterator.next()).toEqual({ value: { id: 3 }, done: false });

    const waiting = iterator.next();
    expect(await iterator.return?.()).toEqual({ value: undefined, done: true });
    expect(await waiting).toEqual({ value: undefined, done: true });
    await bus.publish('pipeline.updated', { id: 5 });
    await flush(bus);
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
  });

  it('works with for await and ends open iterators on stop()', async () => {
    const bus = await startedBus();
    const seen: number[] = [];
    const consumer = (async () => {
      for await (const payload of bus.iterate<number>('tick')) seen.push(payload);
    })();
    await bus.publish('tick', 1);
    await bus.publish('tick', 2);
    await waitFor(() => seen.length === 2);
    await bus.stop();
    await consumer;
    expect(seen).toEqual([1, 2]);
  });

  it(`keeps only the newest ${ITERATOR_BUFFER_LIMIT} events for a slow consumer, with a warning`, async () => {
    const warnings: object[] = [];
    const bus = await startedBus(db, warnings);
    const iterator = bus.iterate<number>('burst');
    const total = ITERATOR_BUFFER_LIMIT + 5;
    await db.prisma.$transaction(async (tx) => {
      for (let i = 0; i < total; i += 1) await bus.publish('burst', i, tx);
    });
    await flush(bus);
    expect(warnings).toEqual([{ topic: 'burst', dropped: 1 }]);
    const values: number[] = [];
    for (let i = 0; i < ITERATOR_BUFFER_LIMIT; i += 1) {
      const next = await iterator.next();
      if (!next.done) values.push(next.value);
    }
    expect(values[0]).toBe(5);
    expect(values[values.length - 1]).toBe(total - 1);
    expect(values).toHaveLength(ITERATOR_BUFFER_LIMIT);
    await iterator.return?.();
  }, 20_000);
});
