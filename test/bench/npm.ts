/**
 * npm registry metadata (issue 27): requests per second of `GET /projects/:id/packages/npm/<name>` for a package with
 * `BENCH_NPM_VERSIONS` (200) versions, each with a file, package.json and dist-tag, loaded by autocannon (`-c 10`)
 * for `BENCH_SECONDS`; `GET /api/v4/version` (one authenticated query) in the same run is the reference. The server
 * runs as `npm start` runs it; `DATABASE_URL` runs it on PostgreSQL.
 */
import { rmSync } from 'node:fs';
import autocannon from 'autocannon';
import { publication } from '../packages/npm-support.js';
import { call, serverEnv, startChild, TOKEN } from './shared.js';

const VERSIONS = Number(process.env.BENCH_NPM_VERSIONS ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const { env, dataDir } = serverEnv('npm');

function load(url: string): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, headers: { Authorization: `Bearer ${TOKEN}` }, connections: CONNECTIONS, duration: SECONDS }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

try {
  const server = await startChild('npm', ['start', '--silent'], { ...env, DATA_DIR: dataDir }, '/api/v4/version', { 'PRIVATE-TOKEN': TOKEN });
  try {
    const group = await call(server.url, 'POST', '/groups', { name: `bench-npm-${Date.now()}`, path: `bench-npm-${Date.now()}` });
    const project = await call(server.url, 'POST', '/projects', { name: 'registry', namespace_id: group.id });
    const name = `@${group.path}/many`;
    const registry = `${server.url}/api/v4/projects/${project.id}/packages/npm/`;
    for (let i = 0; i < VERSIONS; i++) {
      const { body } = publication(name, `1.0.${i}`, { extra: { dependencies: { [`dep-${i % 7}`]: `^${i}.0.0` } }, tag: i % 10 === 0 ? `t${i}` : 'latest' });
      const res = await fetch(`${registry}${name.replace('/', '%2f')}`, { method: 'PUT', headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      if (res.status !== 200) throw new Error(`publish: ${res.status} ${await res.text()}`);
    }
    // The job queue checks each tarball; the metadata lists a version once it is installable.
    const metadataUrl = `${registry}${name.replace('/', '%2f')}`;
    let size = 0;
    for (;;) {
      const res = await fetch(metadataUrl, { headers: { Authorization: `Bearer ${TOKEN}` } });
      const text = await res.text();
      if (res.ok && Object.keys((JSON.parse(text) as { versions: object }).versions).length === VERSIONS) {
        size = Buffer.byteLength(text);
        break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }

    const version = await load(`${server.url}/api/v4/version`);
    const metadata = await load(metadataUrl);
    console.log(`\n## npm metadata: one package with ${VERSIONS} versions (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}, -c ${CONNECTIONS}, ${SECONDS} s)\n`);
    console.log('| request | req/s | p50 ms | p99 ms | bytes |');
    console.log('|---|---|---|---|---|');
    console.log(`| GET /api/v4/version (reference) | ${version.requests.average.toFixed(0)} | ${version.latency.p50} | ${version.latency.p99} | |`);
    console.log(`| GET …/packages/npm/${name} | ${metadata.requests.average.toFixed(0)} | ${metadata.latency.p50} | ${metadata.latency.p99} | ${size} |`);
    if (metadata.non2xx || metadata.errors) throw new Error(`metadata: ${metadata.non2xx} non-2xx, ${metadata.errors} errors`);
  } finally {
    await server.stop();
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
