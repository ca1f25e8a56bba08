/**
 * Every artifact report GitLab accepts (`artifacts:reports`): sent to runners in the job payload's `artifacts` with
 * GitLab's type, format and default name; uploaded by the built-in runner as gitlab-runner does (a zip, a gzip
 * member per file, or one raw file); kept with its file type and format in the job's `artifacts`. A `dotenv` report is
 * parsed on upload with GitLab's rules and limits, and its variables reach the jobs that depend on it with GitLab's
 * precedence. `expire_in`, `name`, `exclude`, `when` and `expose_as` are honoured, and the recurring job of the job
 * queue removes expired artifacts.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { recurringKey } from '../../src/jobs/queue.js';
import { cloneUrl, gitSandbox } from '../support/git.js';
import { createProject } from '../support/factories.js';
import { suiteServer } from '../support/server.js';
import { createRunner, eventually, jobsOf, projectWithConfig, pushPipeline, requestJob, runnerCall, RUNNER_INFO, withShellRunner } from '../runners/support.js';

const t = suiteServer({ ciLongPollingMs: 2000 });
withShellRunner(t);
const git = gitSandbox();
vi.setConfig({ testTimeout: 90_000 });

const SETTLED = ['success', 'failed', 'canceled', 'skipped', 'manual'];
const byName = <T extends { name: string }>(jobs: T[], name: string) => jobs.find((j) => j.name === name) as T;

const JUNIT = '<testsuites><testsuite name="unit"><testcase name="adds" classname="Calc" time="0.5"/><testcase name="fails" classname="Calc"><failure message="no">boom</failure></testcase></testsuite></testsuites>';
const COBERTURA = '<?xml version="1.0"?><coverage line-rate="0.8" branch-rate="0" version="1.9" timestamp="1"><sources><source>src</source></sources><packages/></coverage>';
const CODEQUALITY = '[{"description":"Method too long","check_name":"method_lines","fingerprint":"abc","severity":"minor","location":{"path":"app.rb","lines":{"begin":3}}}]';

const CONFIG = `
stages: [build, test]
build:
  stage: build
  script:
    - printf 'VERSION=1.2.3\\nEXTRA = spaced value \\nOVERRIDDEN=from-dotenv\\n' > build.env
    - mkdir -p dist && echo binary > dist/app.bin && echo noise > dist/app.log
    - echo '${JUNIT}' > junit.xml
    - echo '${COBERTURA}' > coverage.xml
    - echo '${CODEQUALITY}' > gl-code-quality-report.json
  artifacts:
    name: my-$CI_JOB_NAME
    paths: [dist/]
    exclude: ['dist/*.log']
    expire_in: 2 days
    expose_as: Build output
    reports:
      dotenv: build.env
      junit: junit.xml
      coverage_report:
        coverage_format: cobertura
        path: coverage.xml
      codequality: gl-code-quality-report.json
use:
  stage: test
  needs: [build]
  variables:
    VERSION: from-yaml
  script:
    - echo "version=$VERSION extra=[$EXTRA] overridden=$OVERRIDDEN"
    - test -f dist/app.bin && test ! -e dist/app.log && echo "archive ok"
blind:
  stage: test
  needs: [{job: build, artifacts: false}]
  script: echo "version=[$VERSION]"
deploy:
  stage: test
  needs: [build]
  variables:
    CHILD_VERSION: v$VERSION
  trigger:
    include: child.yml
    strategy: depend
bad-dotenv:
  stage: test
  needs: []
  allow_failure: true
  script:
    - for i in $(seq 1 21); do echo "K$i=$i"; done > too-many.env
  artifacts:
    reports:
      dotenv: too-many.env
on-failure:
  stage: test
  needs: []
  script:
    - echo kept > failed.txt
    - exit 3
  allow_failure: true
  artifacts:
    when: on_failure
    paths: [failed.txt]
    expire_in: never
`;

/** Pushes `files` as the first commit of a new project with the real git CLI; the project and its push pipeline. */
async function pushed(files: Record<string, string>) {
  const project = await createProject(t, t.rootToken);
  const dir = git.folder();
  await git.ok(dir, ['init', '-q', '-b', 'main']);
  const { writeFile } = await import('node:fs/promises');
  for (const [name, content] of Object.entries(files)) await writeFile(`${dir}/${name}`, content);
  await git.ok(dir, ['add', '-A']);
  await git.ok(dir, ['commit', '-q', '-m', 'CI']);
  await git.ok(dir, ['push', '-q', cloneUrl(t.url, project.path_with_namespace, t.rootToken), 'main']);
  const sha = (await git.ok(dir, ['rev-parse', 'HEAD'])).trim();
  return { project, pipeline: await pushPipeline(t, project.id, sha) };
}

async function settled(projectId: number, pipelineId: number) {
  return eventually(async () => {
    const jobs = await jobsOf(t, projectId, pipelineId);
    return jobs.every((j) => SETTLED.includes(j.status)) && jobs;
  }, 60_000);
}

function upload(job: { id: number; token: string }, bytes: Buffer, query: Record<string, string>, name = 'file') {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), name);
  return fetch(`${t.url}/api/v4/jobs/${job.id}/artifacts?${new URLSearchParams(query)}`, { method: 'POST', body: form, headers: { 'JOB-TOKEN': job.token } }).then(async (res) => ({ status: res.status, text: await res.text() }));
}

describe('artifact reports run by the built-in runner', () => {
  it('uploads every report with its type and format, passes dotenv variables to needs, and honours the options', async () => {
    const { project, pipeline } = await pushed({ '.gitlab-ci.yml': CONFIG, 'child.yml': 'child-job:\n  script: echo "child version=$CHILD_VERSION"\n' });
    const variable = await t.api('POST', `/projects/${project.id}/variables`, { body: { key: 'OVERRIDDEN', value: 'from-project' } });
    expect(variable.status, variable.text).toBe(201);
    const jobs = await settled(project.id, pipeline.id);
    expect(Object.fromEntries(jobs.map((j) => [j.name, j.status]))).toEqual({ build: 'success', use: 'success', blind: 'success', 'bad-dotenv': 'failed', 'on-failure': 'failed' });
    const trace = async (name: string) => (await t.api('GET', `/projects/${project.id}/jobs/${byName(jobs, name).id}/trace`)).text;

    // dotenv beats the job's own variables; project variables beat dotenv (GitLab's precedence).
    const use = await trace('use');
    expect(use).toContain('version=1.2.3 extra=[spaced value] overridden=from-project');
    expect(use).toContain('archive ok');
    expect(await trace('blind')).toContain('version=[]');
    // A bridge that needs the job expands its variables with the dotenv ones for its downstream pipeline.
    const bridge = await eventually(async () => {
      const [found] = (await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}/bridges`)).body;
      return SETTLED.includes(found?.status) && found;
    }, 60_000);
    expect(bridge.status).toBe('success');
    const [child] = await jobsOf(t, project.id, bridge.downstream_pipeline.id);
    expect((await t.api('GET', `/projects/${project.id}/jobs/${child.id}/trace`)).text).toContain('child version=v1.2.3');

    // A dotenv report GitLab refuses fails the upload, and so the job, with GitLab's reason in its log.
    expect(await trace('bad-dotenv')).toContain('Uploading artifacts as "dotenv" to coordinator... failed (Dotenv files cannot have more than 20 variables)');
    const build = await trace('build');
    for (const type of ['archive', 'junit', 'cobertura', 'codequality', 'dotenv']) expect(build).toContain(`Uploading artifacts as "${type}" to coordinator... 201 Created`);

    const job = (await t.api('GET', `/projects/${project.id}/jobs/${byName(jobs, 'build').id}`)).body;
    const byType = Object.fromEntries(job.artifacts.map((a: { file_type: string }) => [a.file_type, a]));
    expect(Object.keys(byType).sort()).toEqual(['archive', 'cobertura', 'codequality', 'dotenv', 'junit']);
    expect(byType.archive).toMatchObject({ filename: 'my-build.zip', file_format: 'zip' });
    expect(byType.junit).toMatchObject({ filename: 'junit.xml.gz', file_format: 'gzip' });
    expect(byType.cobertura).toMatchObject({ filename: 'cobertura-coverage.xml.gz', file_format: 'gzip' });
    expect(byType.dotenv).toMatchObject({ filename: '.env.gz', file_format: 'gzip' });
    expect(byType.codequality).toEqual({ file_type: 'codequality', filename: 'gl-code-quality-report.json', file_format: 'raw', size: CODEQUALITY.length + 1 });
    expect(job.artifacts_file).toEqual({ filename: 'my-build.zip', size: byType.archive.size });
    const expires = new Date(job.artifacts_expire_at).getTime();
    expect(Math.abs(expires - (Date.now() + 2 * 86400_000))).toBeLessThan(120_000);

    // GraphQL's Pipeline.jobArtifacts (GitLab Free): every file of the pipeline's jobs.
    const gql = await t.graphql('query($p: ID!, $iid: ID!) { project(fullPath: $p) { pipeline(iid: $iid) { jobArtifacts { id name fileType size expireAt } } } }', {
      p: project.path_with_namespace,
      iid: String((pipeline as unknown as { iid: number }).iid),
    });
    const listed = gql.body.data.project.pipeline.jobArtifacts as { id: string; name: string; fileType: string; size: number; expireAt: string | null }[];
    expect(listed.map((a) => [a.fileType, a.name]).sort()).toEqual([
      ['ARCHIVE', 'artifacts.zip'],
      ['ARCHIVE', 'my-build.zip'],
      ['COBERTURA', 'cobertura-coverage.xml.gz'],
      ['CODEQUALITY', 'gl-code-quality-report.json'],
      ['DOTENV', '.env.gz'],
      ['JUNIT', 'junit.xml.gz'],
    ]);
    expect(listed[0].id).toMatch(/^gid:\/\/gitlab\/Ci::JobArtifact\/\d+$/);

    // `exclude` kept dist/app.log out of the archive.
    const file = (path: string) => fetch(`${t.url}/api/v4/projects/${project.id}/jobs/${byName(jobs, 'build').id}/artifacts/${path}`, { headers: { 'PRIVATE-TOKEN': t.rootToken } });
    expect(await (await file('dist/app.bin')).text()).toBe('binary\n');
    expect((await file('dist/app.log')).status).toBe(404);

    // The JUnit report reaches the pipeline's test report.
    const report = (await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}/test_report`)).body;
    expect(report).toMatchObject({ total_count: 2, success_count: 1, failed_count: 1 });

    // `when: on_failure` uploaded for the failed job, and `expire_in: never` leaves it without an expiry.
    const failed = (await t.api('GET', `/projects/${project.id}/jobs/${byName(jobs, 'on-failure').id}`)).body;
    expect(failed.artifacts.map((a: { file_type: string }) => a.file_type)).toEqual(['archive']);
    expect(failed.artifacts_expire_at).toBeNull();
  });
});

describe('the runner protocol', () => {
  const RAW = `
build:
  tags: [raw]
  script: echo
  artifacts:
    paths: [out/]
    exclude: [out/tmp]
    expire_in: 1 hour
    expose_as: Output
    reports:
      dotenv: [a.env, b.env]
      junit: junit.xml
      coverage_report: {coverage_format: cobertura, path: cov.xml}
      codequality: cq.json
      sast: sast.json
      dependency_scanning: ds.json
      container_scanning: cs.json
      dast: dast.json
      license_scanning: ls.json
      secret_detection: sd.json
      metrics: metrics.txt
      terraform: plan.json
      requirements: req.json
      accessibility: a11y.json
      performance: perf.json
      browser_performance: bp.json
      load_performance: lp.json
      annotations: ann.json
      cyclonedx: [sbom.json]
      api_fuzzing: af.json
      coverage_fuzzing: cf.json
      cluster_image_scanning: cis.json
      requirements_v2: r2.json
      repository_xray: rx.json
next:
  tags: [raw]
  needs: [build]
  variables:
    FROM_YAML: yaml
  script: echo
`;

  it('sends every report in the payload as GitLab does, checks dotenv uploads, and hands dependants its variables', async () => {
    const { project } = await projectWithConfig(t, RAW);
    const runner = await createRunner(t, { project_id: project.id, tag_list: ['raw'] });
    const job = await requestJob(t, runner.token);
    const entry = (type: string, name: string, format: string, paths: string[]) => ({ name, untracked: null, paths, when: 'always', expire_in: '1 hour', artifact_type: type, artifact_format: format });
    expect(job.artifacts).toEqual([
      { name: null, untracked: null, paths: ['out/'], exclude: ['out/tmp'], when: 'on_success', expire_in: '1 hour', artifact_type: 'archive', artifact_format: 'zip' },
      entry('dotenv', '.env', 'gzip', ['a.env', 'b.env']),
      entry('junit', 'junit.xml', 'gzip', ['junit.xml']),
      entry('cobertura', 'cobertura-coverage.xml', 'gzip', ['cov.xml']),
      entry('codequality', 'gl-code-quality-report.json', 'raw', ['cq.json']),
      entry('sast', 'gl-sast-report.json', 'raw', ['sast.json']),
      entry('dependency_scanning', 'gl-dependency-scanning-report.json', 'raw', ['ds.json']),
      entry('container_scanning', 'gl-container-scanning-report.json', 'raw', ['cs.json']),
      entry('dast', 'gl-dast-report.json', 'raw', ['dast.json']),
      entry('license_scanning', 'gl-license-scanning-report.json', 'raw', ['ls.json']),
      entry('secret_detection', 'gl-secret-detection-report.json', 'raw', ['sd.json']),
      entry('metrics', 'metrics.txt', 'gzip', ['metrics.txt']),
      entry('terraform', 'tfplan.json', 'raw', ['plan.json']),
      entry('requirements', 'requirements.json', 'raw', ['req.json']),
      entry('accessibility', 'gl-accessibility.json', 'raw', ['a11y.json']),
      entry('performance', 'performance.json', 'raw', ['perf.json']),
      entry('browser_performance', 'browser-performance.json', 'raw', ['bp.json']),
      entry('load_performance', 'load-performance.json', 'raw', ['lp.json']),
      entry('annotations', 'gl-annotations.json', 'gzip', ['ann.json']),
      entry('cyclonedx', 'gl-sbom.cdx.json', 'gzip', ['sbom.json']),
      entry('api_fuzzing', 'gl-api-fuzzing-report.json', 'raw', ['af.json']),
      entry('coverage_fuzzing', 'gl-coverage-fuzzing.json', 'raw', ['cf.json']),
      entry('cluster_image_scanning', 'gl-cluster-image-scanning-report.json', 'raw', ['cis.json']),
      entry('requirements_v2', 'requirements_v2.json', 'raw', ['r2.json']),
      entry('repository_xray', 'gl-repository-xray.json', 'gzip', ['rx.json']),
    ]);

    // Each type has one format; dotenv files GitLab cannot read are refused and not kept.
    expect(await upload(job, gzipSync('A=1\n'), { artifact_type: 'dotenv', artifact_format: 'zip' })).toEqual({ status: 400, text: '{"message":"Invalid file format with specified file type"}' });
    expect(await upload(job, gzipSync('A=1\n\nB=2\n'), { artifact_type: 'dotenv', artifact_format: 'gzip' })).toEqual({ status: 400, text: '{"message":"Invalid Format"}' });
    expect(await upload(job, gzipSync('# comment\n'), { artifact_type: 'dotenv', artifact_format: 'gzip' })).toEqual({ status: 400, text: '{"message":"Invalid Format"}' });
    expect(await upload(job, gzipSync('MY-KEY=1\n'), { artifact_type: 'dotenv', artifact_format: 'gzip' })).toEqual({ status: 400, text: `{"message":"Validation failed: Key can contain only letters, digits and '_'."}` });
    const many = Array.from({ length: 21 }, (_, i) => `K${i}=${i}\n`).join('');
    expect(await upload(job, gzipSync(many), { artifact_type: 'dotenv', artifact_format: 'gzip' })).toEqual({ status: 400, text: '{"message":"Dotenv files cannot have more than 20 variables"}' });
    const big = Buffer.alloc(5120, 1);
    expect(await upload(job, big, { artifact_type: 'dotenv', artifact_format: 'gzip' })).toEqual({ status: 400, text: '{"message":"Dotenv Artifact Too Big. Maximum Allowable Size: 5120"}' });
    // Two files, two gzip members; a key named twice keeps its last value.
    const dotenv = Buffer.concat([gzipSync('FROM_YAML=dotenv\nVERSION=1\n'), gzipSync('VERSION = 2.0 \nURL=https://x.example/?a=b\n')]);
    expect(await upload(job, dotenv, { artifact_type: 'dotenv', artifact_format: 'gzip', expire_in: '1 hour' }, '.env.gz')).toEqual({ status: 201, text: '201' });
    expect(await upload(job, Buffer.from('{}'), { artifact_type: 'codequality', artifact_format: 'raw', expire_in: '1 hour' }, 'gl-code-quality-report.json')).toMatchObject({ status: 201 });
    expect((await runnerCall(t, 'PUT', `/jobs/${job.id}`, { token: job.token, info: RUNNER_INFO, state: 'success' })).status).toBe(200);

    const shown = (await t.api('GET', `/projects/${project.id}/jobs/${job.id}`)).body;
    expect(shown.artifacts).toEqual([
      { file_type: 'dotenv', size: dotenv.length, filename: '.env.gz', file_format: 'gzip' },
      { file_type: 'codequality', size: 2, filename: 'gl-code-quality-report.json', file_format: 'raw' },
    ]);

    const next = await requestJob(t, runner.token);
    expect(next.dependencies).toEqual([{ id: job.id, name: 'build', token: next.token }]);
    const vars = next.variables.filter((v: { key: string }) => ['FROM_YAML', 'VERSION', 'URL'].includes(v.key));
    expect(vars).toEqual([
      { key: 'FROM_YAML', value: 'yaml', public: true, masked: false },
      { key: 'FROM_YAML', value: 'dotenv', public: false, masked: false },
      { key: 'VERSION', value: '2.0', public: false, masked: false },
      { key: 'URL', value: 'https://x.example/?a=b', public: false, masked: false },
    ]);
    await runnerCall(t, 'PUT', `/jobs/${next.id}`, { token: next.token, info: RUNNER_INFO, state: 'failed' });
  });

  it('refuses report options GitLab refuses', async () => {
    const lint = async (yaml: string) => (await t.api('POST', `/projects/${(await createProject(t, t.rootToken)).id}/ci/lint`, { body: { content: yaml } })).body.errors;
    expect(await lint('j:\n  script: x\n  artifacts:\n    expose_as: "bad!"\n    paths: ["*.txt"]\n')).toEqual([
      "jobs:j:artifacts expose as can contain only letters, digits, '-', '_' and spaces",
      "jobs:j:artifacts paths can't contain '*' when used with 'expose_as'",
    ]);
    expect(await lint('j:\n  script: x\n  artifacts:\n    reports:\n      coverage_report: {coverage_format: lcov, path: x}\n')).toEqual([
      'jobs:j:artifacts:reports:coverage_report coverage format must be one of supported formats: cobertura, jacoco.',
    ]);
  });
});

describe('expired artifacts', () => {
  it('are removed by the recurring job of the job queue, unless keep_latest_artifact keeps the latest pipeline of the ref', async () => {
    const { project } = await projectWithConfig(t, 'build:\n  tags: [expiry]\n  script: echo\n  artifacts:\n    reports:\n      dotenv: b.env\n');
    const runner = await createRunner(t, { project_id: project.id, tag_list: ['expiry'] });
    const job = await requestJob(t, runner.token);
    expect((await upload(job, gzipSync('V=1\n'), { artifact_type: 'dotenv', artifact_format: 'gzip', expire_in: '1 week' }, '.env.gz')).status).toBe(201);
    await runnerCall(t, 'PUT', `/jobs/${job.id}`, { token: job.token, info: RUNNER_INFO, state: 'failed' });
    const db = t.server.database.prisma;
    const runExpiry = async () => {
      await db.job.update({ where: { uniqueKey: recurringKey('runners.expired_artifacts') }, data: { runAt: new Date() } });
      await t.server.app.jobs.drain();
    };
    await runExpiry();
    expect(await db.ciJobArtifact.count({ where: { jobId: job.id } })).toBe(1);
    // Expired, but its pipeline is the ref's latest: keep_latest_artifact keeps it until that is turned off.
    await db.ciJobArtifact.updateMany({ where: { jobId: job.id }, data: { expireAt: new Date(Date.now() - 1000) } });
    await runExpiry();
    expect(await db.ciJobArtifact.count({ where: { jobId: job.id } })).toBe(1);
    const off = await t.graphql('mutation($p: ID!) { projectCiCdSettingsUpdate(input: { fullPath: $p, keepLatestArtifact: false }) { errors } }', { p: project.path_with_namespace });
    expect(off.body.data).toEqual({ projectCiCdSettingsUpdate: { errors: [] } });
    await runExpiry();
    expect(await db.ciJobArtifact.count({ where: { jobId: job.id } })).toBe(0);
    expect((await t.api('GET', `/projects/${project.id}/jobs/${job.id}`)).body.artifacts).toEqual([]);
    // The job's dotenv variables outlive the report (GitLab keeps them as job variables).
    expect((await db.ciJob.findUniqueOrThrow({ where: { id: job.id } })).dotenvVariables).toEqual([{ key: 'V', value: '1' }]);
  });
});
