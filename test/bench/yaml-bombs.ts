/**
 * `GET /version` latency while four clients commit YAML bombs (issue 23), against the same latency with nothing else
 * running and with four clients committing a small valid configuration. Each commit's push plans a pipeline from the
 * committed `.gitlab-ci.yml` (test/ci/bombs.ts: billion laughs, alias chain, merge keys, deep anchors), which the
 * server must refuse without stalling other requests. One client asks `/version` one request after another, so each
 * sample is a request's whole wait. The server runs as `npm start` runs it; `DATABASE_URL` runs it on PostgreSQL.
 */
import { rmSync } from 'node:fs';
import { BOMBS } from '../ci/bombs.js';
import { TOKEN, call, pct, serverEnv, startChild } from './shared.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const CLIENTS = 4;
const TOO_BIG = 'The parsed YAML is too big';
const { env, dataDir, databaseUrl } = serverEnv('yaml');


/** `/version` latencies (ms) for DURATION seconds, while `load` runs (it is told to stop when they end). */
async function versionLatencies(base: string, load: (running: () => boolean) => Promise<void>): Promise<number[]> {
  const until = performance.now() + DURATION * 1000;
  const running = () => performance.now() < until;
  const samples: number[] = [];
  const loading = load(running);
  while (running()) {
    const started = performance.now();
    const res = await fetch(`${base}/api/v4/version`, { headers: { 'PRIVATE-TOKEN': TOKEN } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET /version: ${res.status}`);
    samples.push(performance.now() - started);
  }
  await loading;
  return samples;
}

try {
  const server = await startChild('npm', ['start', '--silent'], env, '/api/v4/version', { 'PRIVATE-TOKEN': TOKEN });
  try {
    const project = await call(server.url, 'POST', '/projects', { name: `bench-yaml-${Date.now()}` });
    await call(server.url, 'POST', `/projects/${project.id}/repository/commits`, {
      branch: 'main',
      commit_message: 'CI',
      actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: 'job:\n  script: x\n' }],
    });
    const shas: string[] = [];
    /** CLIENTS clients, each on its own branch, committing `.gitlab-ci.yml` one commit after another. */
    const committing = (configs: string[]) => async (running: () => boolean) => {
      await Promise.all(
        Array.from({ length: CLIENTS }, async (_, client) => {
          for (let i = 0; running(); i++) {
            const commit = await call(server.url, 'POST', `/projects/${project.id}/repository/commits`, {
              branch: `${configs.length > 1 ? 'bomb' : 'plain'}-${client}-${i}`,
              start_branch: 'main',
              commit_message: `CI ${i}`,
              actions: [{ action: 'update', file_path: '.gitlab-ci.yml', content: configs[(client + i) % configs.length] }],
            });
            shas.push(commit.id);
          }
        }),
      );
    };
    await versionLatencies(server.url, async () => {}); // warm-up, discarded
    const idle = await versionLatencies(server.url, async () => {});
    const plain = await versionLatencies(server.url, committing([`build:\n  script: make\ntest:\n  script: make test\n`]));
    const plainCommits = shas.splice(0).length;
    const bombs = await versionLatencies(server.url, committing(Object.values(BOMBS)));
    const bombShas = shas.splice(0);
    // Every bomb's pipeline exists and says why it failed (checked after the measurement, so it adds no load).
    const pipelines = await Promise.all(bombShas.map(async (sha) => {
      for (;;) {
        const [listed] = await call(server.url, 'GET', `/projects/${project.id}/pipelines?sha=${sha}`);
        if (listed) return call(server.url, 'GET', `/projects/${project.id}/pipelines/${listed.id}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }));
    const refused = pipelines.filter((p) => p.status === 'failed' && p.yaml_errors === TOO_BIG).length;
    const row = (name: string, samples: number[], commits: number | string) =>
      `| ${name} | ${samples.length} | ${pct(samples, 50).toFixed(1)} | ${pct(samples, 99).toFixed(1)} | ${commits} |`;
    console.log(`\nGET /version while ${CLIENTS} clients commit .gitlab-ci.yml (${DURATION}s each; ${databaseUrl ? 'PostgreSQL' : 'PGlite'})\n`);
    console.log('| case | requests | p50 ms | p99 ms | commits |\n|---|---|---|---|---|');
    console.log(row('nothing else', idle, ''));
    console.log(row(`${CLIENTS} clients commit a valid configuration`, plain, plainCommits));
    console.log(row(`${CLIENTS} clients commit YAML bombs`, bombs, `${bombShas.length} (${refused} pipelines failed: ${TOO_BIG})`));
    console.log(`\np99 with bombs / p99 with nothing else: ${(pct(bombs, 99) / pct(idle, 99)).toFixed(2)} (target ≤ 2)`);
    console.log(`p99 with bombs / p99 with valid commits: ${(pct(bombs, 99) / pct(plain, 99)).toFixed(2)}\n`);
    if (refused !== bombShas.length) process.exitCode = 1;
  } finally {
    await server.stop();
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
