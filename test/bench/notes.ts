/**
 * Long threads (issue 29's bound): an issue with BENCH_NOTES notes (10,000: single comments, and one thread, after the
 * first page, holding a tenth of them as replies) against an issue with 10 in the same project, the floor. The first page of the Notes
 * API (`GET …/notes`, newest first, and `sort=asc`) and of the Discussions API (`GET …/discussions`, oldest thread
 * first), each BENCH_NOTES_REQUESTS times one after another: p50/p99, and the large issue's p50 over the small one's
 * (1.0 is the bound: a first page costs the same whatever the issue holds). The server runs as `npm start` runs it;
 * `DATABASE_URL` runs it on PostgreSQL.
 */
import { rmSync } from 'node:fs';
import { TOKEN, call, pct, progress, serverEnv, startChild, timings } from './shared.js';

const NOTES = Number(process.env.BENCH_NOTES ?? 10_000);
const REQUESTS = Number(process.env.BENCH_NOTES_REQUESTS ?? 50);
const SENDERS = 8;
const { env, dataDir, databaseUrl } = serverEnv('notes');

try {
  const server = await startChild('npm', ['start', '--silent'], env, '/api/v4/version', { 'PRIVATE-TOKEN': TOKEN });
  try {
    const project = await call(server.url, 'POST', '/projects', { name: `bench-notes-${Date.now()}` });
    const issues = `/projects/${project.id}/issues`;
    const small = await call(server.url, 'POST', issues, { title: 'Ten notes' });
    const large = await call(server.url, 'POST', issues, { title: `${NOTES} notes` });
    for (let i = 0; i < 10; i++) await call(server.url, 'POST', `${issues}/${small.iid}/notes`, { body: `note ${i}` });

    // The large issue: single comments, then one thread holding a tenth of the notes as replies (after the first page,
    // so the first page holds single comments on both issues), then the rest, by 8 senders.
    const replies = Math.floor(NOTES / 10);
    const EARLY = 100;
    const send = async (from: number, to: number, one: (i: number) => Promise<unknown>) => {
      let next = from;
      await Promise.all(
        Array.from({ length: SENDERS }, async () => {
          while (next < to) {
            const i = next++;
            await one(i);
            if (i % 1000 === 0) progress(`notes: ${i} of ${NOTES}`);
          }
        }),
      );
    };
    const single = (i: number) => call(server.url, 'POST', `${issues}/${large.iid}/notes`, { body: `note ${i}` });
    const started = performance.now();
    await send(0, EARLY, single);
    const thread = await call(server.url, 'POST', `${issues}/${large.iid}/discussions`, { body: 'the long thread' });
    await send(EARLY + 1, NOTES, (i) =>
      i <= EARLY + replies ? call(server.url, 'POST', `${issues}/${large.iid}/discussions/${thread.id}/notes`, { body: `reply ${i}` }) : single(i),
    );
    const seconds = (performance.now() - started) / 1000;

    const get = async (iid: number, path: string, total: number) => {
      const res = await fetch(`${server.url}/api/v4${issues}/${iid}${path}`, { headers: { 'PRIVATE-TOKEN': TOKEN } });
      const body = (await res.json()) as unknown[];
      if (res.status !== 200 || body.length !== Math.min(20, total)) throw new Error(`${path}: ${res.status}, ${body.length} items`);
      return res.headers.get('x-total');
    };
    // The large issue's totals, checked: every note, and its threads (the long one and the single comments).
    const threads = NOTES - replies;
    const notesTotal = await get(large.iid, '/notes?per_page=20', NOTES);
    const threadsTotal = await get(large.iid, '/discussions?per_page=20', threads);
    if (notesTotal !== String(NOTES) || threadsTotal !== String(threads)) throw new Error(`X-Total: ${notesTotal} notes, ${threadsTotal} threads`);

    const cases: [string, string, number, number][] = [
      ['GET …/notes?per_page=20 (newest first)', '/notes?per_page=20', NOTES, 10],
      ['GET …/notes?per_page=20&sort=asc', '/notes?per_page=20&sort=asc', NOTES, 10],
      ['GET …/discussions?per_page=20', '/discussions?per_page=20', threads, 10],
    ];
    const fmt = (n: number) => n.toFixed(1);
    console.log(`\nNotes of one issue: ${NOTES} against 10 (${databaseUrl ? 'PostgreSQL' : 'PGlite'}; ${REQUESTS} requests each, one after another; ${(NOTES / seconds).toFixed(0)} notes/s created by ${SENDERS} senders)\n`);
    console.log(`| first page | p50 ms, ${NOTES} notes | p99 ms | p50 ms, 10 notes (floor) | p99 ms | p50 ratio |\n|---|---|---|---|---|---|`);
    for (const [name, path, bigTotal, smallTotal] of cases) {
      const big = await timings(REQUESTS, () => get(large.iid, path, bigTotal));
      const floor = await timings(REQUESTS, () => get(small.iid, path, smallTotal));
      console.log(`| ${name} | ${fmt(pct(big, 50))} | ${fmt(pct(big, 99))} | ${fmt(pct(floor, 50))} | ${fmt(pct(floor, 99))} | ${(pct(big, 50) / pct(floor, 50)).toFixed(2)} |`);
    }
    console.log('');
  } finally {
    await server.stop();
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
