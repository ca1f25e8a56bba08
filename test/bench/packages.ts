/**
 * Generic packages (issue 27): a 100 MB file uploaded (PUT) and downloaded (GET) through the server, in MB/s, against a
 * plain copy of the same file on the same disk (the floor), and the server's resident memory: its peak (VmHWM) before
 * and after the transfers must stay flat, as the bytes stream and are never held whole. The server runs as `npm start`
 * runs it; `DATABASE_URL` runs it on PostgreSQL. `BENCH_PACKAGE_MB` sets the size.
 */
import { createReadStream, createWriteStream, readdirSync, readFileSync, rmSync } from 'node:fs';
import { copyFile, open } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomBytes } from 'node:crypto';
import { call, serverEnv, startChild, TOKEN } from './shared.js';

const MB = 1024 * 1024;
const SIZE_MB = Number(process.env.BENCH_PACKAGE_MB ?? 100);
const { env, dataDir } = serverEnv('packages');

/** Every process below `pid` (npm, its shell, the server). */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

/** The largest peak resident set (VmHWM, MB) among the processes below `pid`: the server's. */
function peakRss(pid: number): number {
  let peak = 0;
  for (const p of descendants(pid)) {
    try {
      const kb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
      peak = Math.max(peak, kb / 1024);
    } catch {
      // gone meanwhile
    }
  }
  return peak;
}

const source = join(dataDir, 'source.bin');
const file = await open(source, 'w');
for (let i = 0; i < SIZE_MB; i++) await file.write(randomBytes(MB));
await file.close();

const mbps = (ms: number) => (SIZE_MB / (ms / 1000)).toFixed(0);

try {
  const server = await startChild('npm', ['start', '--silent'], { ...env, DATA_DIR: dataDir }, '/api/v4/version', { 'PRIVATE-TOKEN': TOKEN });
  try {
    const project = await call(server.url, 'POST', '/projects', { name: `bench-packages-${Date.now()}` });
    const url = `${server.url}/api/v4/projects/${project.id}/packages/generic/bench/1.0.0/big.bin`;
    // A small upload and download first: the server's code paths are warm, its peak memory is the baseline.
    await fetch(url.replace('big.bin', 'warm.bin'), { method: 'PUT', headers: { 'PRIVATE-TOKEN': TOKEN }, body: 'warm' });
    await (await fetch(url.replace('big.bin', 'warm.bin'), { headers: { 'PRIVATE-TOKEN': TOKEN } })).arrayBuffer();
    const before = peakRss(server.process.pid!);

    let start = performance.now();
    const up = await fetch(url, {
      method: 'PUT',
      headers: { 'PRIVATE-TOKEN': TOKEN, 'Content-Length': String(SIZE_MB * MB) },
      body: Readable.toWeb(createReadStream(source)) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    if (up.status !== 201) throw new Error(`upload: ${up.status} ${await up.text()}`);
    const upload = performance.now() - start;

    start = performance.now();
    const down = await fetch(url, { headers: { 'PRIVATE-TOKEN': TOKEN } });
    await pipeline(Readable.fromWeb(down.body as never), createWriteStream(join(dataDir, 'downloaded.bin')));
    const download = performance.now() - start;
    const after = peakRss(server.process.pid!);

    start = performance.now();
    await copyFile(source, join(dataDir, 'copied.bin'));
    const copy = performance.now() - start;

    console.log(`\n## Generic packages: ${SIZE_MB} MB file (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})\n`);
    console.log('| transfer | ms | MB/s | / plain copy |');
    console.log('|---|---|---|---|');
    console.log(`| plain file copy (floor) | ${copy.toFixed(0)} | ${mbps(copy)} | 1.00 |`);
    console.log(`| PUT upload | ${upload.toFixed(0)} | ${mbps(upload)} | ${(copy / upload).toFixed(2)} |`);
    console.log(`| GET download | ${download.toFixed(0)} | ${mbps(download)} | ${(copy / download).toFixed(2)} |`);
    console.log(`\nserver peak RSS: ${before.toFixed(0)} MB before, ${after.toFixed(0)} MB after (+${(after - before).toFixed(0)} MB for a ${SIZE_MB} MB file)`);
  } finally {
    await server.stop();
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
