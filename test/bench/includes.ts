/**
 * Pipeline creation (`POST /projects/:id/pipeline`) from an include-heavy configuration against the same jobs in one
 * file (issue 32): `.gitlab-ci.yml` including 150 local files of 5 lines each (GitLab's include limit), and a
 * `.gitlab-ci.yml` holding the 150 jobs itself. Each include should cost one blob read (`git cat-file --batch`), not a
 * walk of the repository, so the difference per include is what the bench shows. The server runs as `npm start`
 * runs it; `DATABASE_URL` runs it on PostgreSQL.
 */
import { rmSync } from 'node:fs';
import { call, pct, serverEnv, startChild, TOKEN } from './shared.js';

const INCLUDES = 150;
const ROUNDS = Number(process.env.BENCH_INCLUDE_ROUNDS ?? 10);
const { env, dataDir, databaseUrl } = serverEnv('includes');

/** Job `i` as five lines of YAML. */
const job = (i: number) => `job-${i}:\n  stage: test\n  script:\n    - echo ${i}\n  tags: []\n`;

try {
  const server = await startChild('npm', ['start', '--silent'], env, '/api/v4/version', { 'PRIVATE-TOKEN': TOKEN });
  try {
    const project = await call(server.url, 'POST', '/projects', { name: `bench-includes-${Date.now()}` });
    const parts = Array.from({ length: INCLUDES }, (_, i) => ({ action: 'create', file_path: `ci/part-${i}.yml`, content: job(i) }));
    // Other files the repository holds, so a walk of it would cost more than the includes themselves.
    const others = Array.from({ length: 500 }, (_, i) => ({ action: 'create', file_path: `src/module-${i % 20}/file-${i}.txt`, content: `${i}\n` }));
    const included = `include:\n${parts.map((p) => `  - local: ${p.file_path}\n`).join('')}`;
    const single = Array.from({ length: INCLUDES }, (_, i) => job(i)).join('');
    await call(server.url, 'POST', `/projects/${project.id}/repository/commits`, {
      branch: 'includes',
      commit_message: 'CI with includes',
      actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: included }, ...parts, ...others],
    });
    await call(server.url, 'POST', `/projects/${project.id}/repository/commits`, {
      branch: 'single',
      start_branch: 'includes',
      commit_message: 'CI in one file',
      actions: [{ action: 'update', file_path: '.gitlab-ci.yml', content: single }],
    });
    const timings: Record<'includes' | 'single', number[]> = { includes: [], single: [] };
    for (let round = 0; round <= ROUNDS; round++) {
      for (const ref of ['includes', 'single'] as const) {
        const started = performance.now();
        const pipeline = await call(server.url, 'POST', `/projects/${project.id}/pipeline`, { ref });
        const ms = performance.now() - started;
        if (pipeline.status !== 'pending' && pipeline.status !== 'created') throw new Error(`${ref}: pipeline ${pipeline.status} ${pipeline.yaml_errors ?? ''}`);
        if (round > 0) timings[ref].push(ms); // round 0 warms up
      }
    }
    const row = (name: string, ms: number[]) => `| ${name} | ${ms.length} | ${pct(ms, 50).toFixed(1)} | ${pct(ms, 99).toFixed(1)} |`;
    console.log(`\nPOST /projects/:id/pipeline, ${INCLUDES} jobs (${databaseUrl ? 'PostgreSQL' : 'PGlite'})\n`);
    console.log('| configuration | pipelines | p50 ms | p99 ms |\n|---|---|---|---|');
    console.log(row(`${INCLUDES} local includes of 5 lines`, timings.includes));
    console.log(row('the same jobs in one file', timings.single));
    const perInclude = (pct(timings.includes, 50) - pct(timings.single, 50)) / INCLUDES;
    console.log(`\nper include (p50 difference / ${INCLUDES}): ${perInclude.toFixed(2)} ms\n`);
  } finally {
    await server.stop();
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
