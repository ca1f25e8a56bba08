/**
 * `npx tsx test/bench/startup.ts`: how fast `npm start` answers and how much memory it keeps, started the way a user
 * starts it. For each case (PGlite on a new folder, PGlite on an existing folder, PGlite in memory, and PostgreSQL
 * on DATABASE_URL or a scratch database on 127.0.0.1) it spawns `npm start`, polls GET /api/v4/version until it
 * answers 200, waits 2 s, sums VmRSS over the server's processes (the node running main, its cluster workers) and,
 * apart, over the wrappers (npm, sh), then stops it with SIGTERM. Prints a markdown table of medians. In each case's
 * first run it also waits for the idle server's memory to settle: V8 gives back the young generation it grew to
 * while starting (its memory reducer, once allocation has stayed low for a while), typically 20–30 s after start;
 * the server's RSS is polled each second until it has fallen by a tenth and held for 3 s, or for SETTLE_MS (45 s).
 * STARTUP_RUNS (default 5) runs per case; STARTUP_CASES picks cases by name (comma-separated); STARTUP_ENV adds
 * variables (`WEB_CONCURRENCY=1,DATABASE_POOL_SIZE=4`).
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { npmStart, scratchPostgres } from './shared.js';

const RUNS = Number(process.env.STARTUP_RUNS ?? 5);
const IDLE_MS = 2000;
const SETTLE_MS = Number(process.env.SETTLE_MS ?? 45_000);
const EXTRA_ENV = Object.fromEntries((process.env.STARTUP_ENV ?? '').split(',').filter(Boolean).map((kv) => kv.split('=', 2) as [string, string]));

interface Sample {
  ms: number;
  serverKb: number;
  /** The server's RSS once idle memory has settled, and when (ms after the first answer); first run only. */
  settled?: { kb: number; afterMs: number };
  wrapperKb: number;
  processes: number;
}

interface Case {
  name: string;
  /** Environment of one run; `prepare` runs once before the runs, `cleanup` once after. */
  env(): Promise<Record<string, string>>;
  prepare?(): Promise<void>;
  cleanup?(): Promise<void>;
}

async function status(pid: number): Promise<{ name: string; ppid: number; rssKb: number } | null> {
  const text = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => null);
  if (!text) return null;
  const field = (key: string) => new RegExp(`^${key}:\\s*(.*)$`, 'm').exec(text)?.[1] ?? '';
  return { name: field('Name'), ppid: Number(field('PPid')), rssKb: parseInt(field('VmRSS'), 10) || 0 };
}

/** Every process below `root`, with `root` itself. */
async function tree(root: number): Promise<{ pid: number; name: string; rssKb: number; cmdline: string }[]> {
  const all = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const s = await status(Number(entry));
    if (s) all.push({ pid: Number(entry), ...s });
  }
  const inTree = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) if (!inTree.has(p.pid) && inTree.has(p.ppid)) grew = inTree.add(p.pid).size > 0;
  }
  const picked = all.filter((p) => inTree.has(p.pid));
  return Promise.all(
    picked.map(async (p) => ({ ...p, cmdline: (await readFile(`/proc/${p.pid}/cmdline`, 'utf8').catch(() => '')).replace(/\0/g, ' ') })),
  );
}

/** The wrappers are npm and the shell it runs the script in; every other process of the tree is the server. */
const isWrapper = (p: { name: string; cmdline: string }) => p.name === 'sh' || p.name.startsWith('npm') || /\bnpm(-cli\.js)?\b/.test(p.cmdline.split(' ').slice(0, 2).join(' '));

async function once(env: Record<string, string>, settle = false): Promise<Sample> {
  const server = await npmStart({ ...EXTRA_ENV, ...env });
  try {
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const sum = (list: { rssKb: number }[]) => list.reduce((n, p) => n + p.rssKb, 0);
    const procs = await tree(server.pid);
    const serverRss = async () => sum((await tree(server.pid)).filter((p) => !isWrapper(p)));
    const serverKb = sum(procs.filter((p) => !isWrapper(p)));
    const sample: Sample = { ms: server.ms, serverKb, wrapperKb: sum(procs.filter(isWrapper)), processes: procs.length };
    if (settle) {
      let kb = serverKb;
      let held = 0;
      let waited = IDLE_MS;
      while (waited < SETTLE_MS && held < 3) {
        await new Promise((r) => setTimeout(r, 1000));
        waited += 1000;
        const now = await serverRss();
        held = now <= serverKb * 0.9 && Math.abs(now - kb) < 1024 ? held + 1 : 0;
        kb = now;
      }
      sample.settled = { kb, afterMs: waited };
    }
    return sample;
  } finally {
    await server.stop();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function pgliteFolder(existing: boolean): Case {
  let dir = '';
  return {
    name: existing ? 'PGlite, existing folder' : 'PGlite, new folder',
    async prepare() {
      dir = await mkdtemp(join(tmpdir(), 'startup-bench-'));
      if (existing) await once({ DATA_DIR: join(dir, 'data') });
    },
    async env() {
      if (existing) return { DATA_DIR: join(dir, 'data') };
      return { DATA_DIR: await mkdtemp(join(dir, 'new-')) };
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

function postgres(): Case {
  let db: ReturnType<typeof scratchPostgres> | undefined;
  return {
    name: 'PostgreSQL',
    async prepare() {
      db = scratchPostgres('startup_bench');
      await once({ DATABASE_URL: db.url }); // migrated and seeded once: the runs measure a restart
    },
    env: async () => ({ DATABASE_URL: db?.url ?? '' }),
    async cleanup() {
      db?.drop();
    },
  };
}

const cases: Case[] = [pgliteFolder(false), pgliteFolder(true), { name: 'PGlite, memory', env: async () => ({ DATA_DIR: 'memory' }) }, postgres()];
const only = process.env.STARTUP_CASES?.split(',').map((s) => s.trim().toLowerCase());
const rows: string[] = [];
for (const c of cases.filter((c) => !only || only.some((o) => c.name.toLowerCase().includes(o)))) {
  await c.prepare?.();
  const samples: Sample[] = [];
  try {
    for (let i = 0; i < RUNS; i++) samples.push(await once(await c.env(), i === 0));
  } finally {
    await c.cleanup?.();
  }
  const ms = samples.map((s) => s.ms);
  const settled = samples[0]?.settled;
  rows.push(
    `| ${c.name} | ${median(ms).toFixed(0)} (${Math.min(...ms).toFixed(0)}–${Math.max(...ms).toFixed(0)}) | ` +
      `${(median(samples.map((s) => s.serverKb)) / 1024).toFixed(0)} | ${settled ? `${(settled.kb / 1024).toFixed(0)} (${(settled.afterMs / 1000).toFixed(0)} s)` : '–'} | ` +
      `${(median(samples.map((s) => s.wrapperKb)) / 1024).toFixed(0)} | ${median(samples.map((s) => s.processes))} |`,
  );
  process.stderr.write(`${rows[rows.length - 1]}\n`);
}
console.log(`\n${RUNS} runs per case, medians (min–max)${Object.keys(EXTRA_ENV).length ? `, ${process.env.STARTUP_ENV}` : ''}\n`);
console.log('| case | first answer, ms | server RSS 2 s after, MB | idle server RSS settled, MB (when) | npm/sh RSS, MB | processes |');
console.log('|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
