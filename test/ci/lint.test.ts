/**
 * The CI Lint API (GitLab's lib/api/lint.rb) over raw HTTP with exact JSON and statuses, its permissions, GraphQL's
 * `ciConfig`, and @gitbeaker/rest's Lint resource.
 */
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';
import { EXTERNAL_URL, suiteServer } from '../support/server.js';

const t = suiteServer();

const ROOT_CONFIG = 'include:\n  local: another-gitlab-ci.yml\ntest:\n  stage: test\n  script: echo 1\n';
const INCLUDED = 'another_test:\n  stage: test\n  script: echo 1\n';
const MERGED = '---\nanother_test:\n  stage: test\n  script: echo 1\ntest:\n  stage: test\n  script: echo 1\n';
const INVALID = 'image: image:1.0\nservices:\n- postgres\n';

let owner: TestUser;
let developer: TestUser;
let reporter: TestUser;
let guest: TestUser;
let stranger: TestUser;
let project: any;
let sha: string;

async function commit(projectId: number, token: string, branch: string, actions: { action: string; file_path: string; content: string }[], startBranch?: string) {
  const res = await t.api('POST', `/projects/${projectId}/repository/commits`, {
    token,
    body: { branch, commit_message: 'CI files', actions, ...(startBranch ? { start_branch: startBranch } : {}) },
  });
  if (res.status !== 201) throw new Error(`commit: ${res.status} ${res.text}`);
  return res.body.id as string;
}

const lint = (body: Record<string, unknown>, token: string | null = developer.token, id = project.id) => t.api('POST', `/projects/${id}/ci/lint`, { token, body });
const check = (query = '', token: string | null = developer.token, id = project.id) => t.api('GET', `/projects/${id}/ci/lint${query}`, { token });

beforeAll(async () => {
  [owner, developer, reporter, guest, stranger] = await Promise.all([createUser(t), createUser(t), createUser(t), createUser(t), createUser(t)]);
  project = await createProject(t, owner.token);
  await addMember(t, owner.token, 'projects', project.id, developer.id, 30);
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
  await addMember(t, owner.token, 'projects', project.id, guest.id, 10);
  sha = await commit(project.id, owner.token, 'main', [
    { action: 'create', file_path: '.gitlab-ci.yml', content: ROOT_CONFIG },
    { action: 'create', file_path: 'another-gitlab-ci.yml', content: INCLUDED },
    { action: 'create', file_path: 'ci/pipeline.yml', content: 'custom:\n  script: x\n' },
  ]);
});

const include = (location: string, at = sha) => ({
  type: 'local',
  location,
  blob: `${EXTERNAL_URL}/${project.path_with_namespace}/-/blob/${at}/${location}`,
  raw: `${EXTERNAL_URL}/${project.path_with_namespace}/-/raw/${at}/${location}`,
  extra: {},
  context_project: project.path_with_namespace,
  context_sha: at,
});

describe('POST /projects/:id/ci/lint', () => {
  it('answers a valid configuration with its merged YAML and the local files it includes, in GitLab keys and order', async () => {
    const res = await lint({ content: ROOT_CONFIG });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['valid', 'errors', 'warnings', 'merged_yaml', 'includes']);
    expect(res.body).toEqual({ valid: true, errors: [], warnings: [], merged_yaml: MERGED, includes: [include('another-gitlab-ci.yml')] });
  });

  it('answers invalid YAML with Psych-style errors and no merged YAML or includes', async () => {
    const res = await lint({ content: 'job:\n  script: [echo\nother: }' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: false, warnings: [], merged_yaml: null, includes: null });
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]).toMatch(/^\(<unknown>\): .* at line \d+ column \d+$/);
  });

  it('answers an invalid configuration with GitLab errors, its YAML and no includes', async () => {
    const res = await lint({ content: INVALID });
    expect(res.body).toEqual({ valid: false, errors: ['jobs config should contain at least one visible job'], warnings: [], merged_yaml: `---\n${INVALID}`, includes: [] });
    const keys = await lint({ content: 'build:\n  script: make\n  foo: 1\n' });
    expect(keys.body.errors).toEqual(['jobs:build config contains unknown keys: foo']);
  });

  it('answers "Please provide content" for blank content, and 400 without content', async () => {
    expect((await lint({ content: '  \n' })).body).toEqual({ valid: false, errors: ['Please provide content of .gitlab-ci.yml'], warnings: [], merged_yaml: null, includes: null });
    expect(await lint({})).toMatchObject({ status: 400, body: { error: 'content is missing' } });
  });

  it('lists jobs by stage with GitLab job entity keys only with include_jobs', async () => {
    const content = [
      'stages: [build, test]',
      'rspec:',
      '  stage: test',
      '  script: rspec',
      '  after_script: [cleanup]',
      '  tags: [docker]',
      '  needs: [build]',
      'build:',
      '  stage: build',
      '  before_script: [setup]',
      '  script: make',
      '  environment: staging',
      '  when: manual',
      '',
    ].join('\n');
    const res = await lint({ content, include_jobs: true });
    expect(Object.keys(res.body)).toEqual(['valid', 'errors', 'warnings', 'merged_yaml', 'includes', 'jobs']);
    expect(res.body.jobs).toEqual([
      {
        name: 'build', stage: 'build', before_script: ['setup'], script: ['make'], after_script: [], tag_list: [],
        only: { refs: ['branches', 'tags'] }, except: null, environment: 'staging', when: 'manual', allow_failure: true, needs: null,
      },
      {
        name: 'rspec', stage: 'test', before_script: [], script: ['rspec'], after_script: ['cleanup'], tag_list: ['docker'],
        only: { refs: ['branches', 'tags'] }, except: null, environment: null, when: 'on_success', allow_failure: false,
        needs: [{ name: 'build', artifacts: true, optional: false }],
      },
    ]);
    expect(Object.keys(res.body.jobs[0])).toEqual(['name', 'stage', 'before_script', 'script', 'after_script', 'tag_list', 'only', 'except', 'environment', 'when', 'allow_failure', 'needs']);
    expect((await lint({ content, include_jobs: false })).body).not.toHaveProperty('jobs');
    expect((await lint({ content: INVALID, include_jobs: true })).body.jobs).toEqual([]);
  });

  it('warns about rules:when without workflow:rules and keeps the configuration valid', async () => {
    const res = await lint({ content: 'job:\n  script: ls\n  rules:\n    - when: always\n' });
    expect(res.body.valid).toBe(true);
    expect(res.body.warnings).toEqual([
      'jobs:job may allow multiple pipelines to run for a single action due to `rules:when` clause with no `workflow:rules` - read more: https://docs.gitlab.com/ee/ci/troubleshooting.html#pipeline-warnings',
    ]);
  });

  it('does not evaluate rules statically, but a dry run does, and finds the needs they break', async () => {
    const content = "build:\n  stage: build\n  script: echo\n  rules:\n    - if: '$CI_MERGE_REQUEST_ID'\ntest:\n  stage: test\n  script: echo\n  needs: [build]\n";
    expect((await lint({ content })).body).toMatchObject({ valid: true, errors: [] });
    const dry = await lint({ content, dry_run: true, include_jobs: true });
    expect(dry.body).toMatchObject({
      valid: false,
      errors: [
        "'test' job needs 'build' job, but 'build' does not exist in the pipeline. This might be because of the only, except, or rules keywords. To need a job that sometimes does not exist in the pipeline, use needs:optional.",
      ],
      jobs: [],
    });
  });

  it('simulates a pipeline on the default branch or `ref`, as a push there would create it', async () => {
    await commit(project.id, owner.token, 'feature', [{ action: 'create', file_path: 'feature.txt', content: 'x' }], 'main');
    const content = "main-only:\n  script: deploy\n  rules:\n    - if: '$CI_COMMIT_BRANCH == \"main\"'\n      when: manual\nalways:\n  script: test\n";
    const onMain = await lint({ content, dry_run: true, include_jobs: true });
    expect(onMain.body.valid).toBe(true);
    expect(onMain.body.jobs.map((j: any) => [j.name, j.when, j.allow_failure])).toEqual([['main-only', 'manual', false], ['always', 'on_success', false]]);
    expect(onMain.body.jobs[0]).toEqual({ name: 'main-only', stage: 'test', before_script: [], script: ['deploy'], after_script: [], tag_list: [], only: null, except: null, environment: null, when: 'manual', allow_failure: false, needs: null });
    const onFeature = await lint({ content, dry_run: true, ref: 'feature', include_jobs: true });
    expect(onFeature.body.jobs.map((j: any) => j.name)).toEqual(['always']);
    expect((await lint({ content, dry_run: true, ref: 'nope' })).body).toEqual({ valid: false, errors: ['Reference not found'], warnings: [], merged_yaml: null, includes: null });
    const filtered = await lint({ content: "workflow:\n  rules:\n    - if: '$CI_COMMIT_TAG'\njob:\n  script: x\n", dry_run: true });
    expect(filtered.body.errors).toEqual(['Pipeline filtered out by workflow rules.']);
    const none = await lint({ content: "job:\n  script: x\n  rules:\n    - if: '$CI_COMMIT_TAG'\n", dry_run: true });
    expect(none.body.errors).toEqual(['Pipeline will not run for the selected trigger. The rules configuration prevented any jobs from being added to the pipeline.']);
  });

  it('reports a missing or unsupported include by GitLab words', async () => {
    expect((await lint({ content: 'include: nope.yml\njob:\n  script: x\n' })).body.errors).toEqual(['Local file `nope.yml` does not exist!']);
    expect((await lint({ content: 'include: README.md\njob:\n  script: x\n' })).body.errors).toEqual(['Included file `README.md` does not have YAML extension!']);
    const remote = await lint({ content: 'include: https://example.com/ci.yml\njob:\n  script: x\n' });
    expect(remote.body).toMatchObject({ valid: false, merged_yaml: null, includes: null });
    expect(remote.body.errors[0]).toMatch(/^Remote include `https:\/\/example.com\/ci.yml` is not supported/);
  });

  it('needs Developer: 404 to non-members of a private project, 403 to a Reporter, 401 anonymously on a public project', async () => {
    expect(await lint({ content: ROOT_CONFIG }, stranger.token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await lint({ content: ROOT_CONFIG }, null)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await lint({ content: ROOT_CONFIG }, reporter.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await lint({ content: ROOT_CONFIG }, guest.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect((await lint({ content: ROOT_CONFIG }, owner.token)).status).toBe(200);
    const open = await createProject(t, owner.token, { visibility: 'public' });
    expect(await lint({ content: ROOT_CONFIG }, null, open.id)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await lint({ content: ROOT_CONFIG }, stranger.token, open.id)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
  });

  it('lints against an empty repository, whose includes cannot exist', async () => {
    const empty = await createProject(t, developer.token);
    expect((await lint({ content: 'job:\n  script: x\n' }, developer.token, empty.id)).body).toMatchObject({ valid: true, errors: [] });
    expect((await lint({ content: ROOT_CONFIG }, developer.token, empty.id)).body.errors).toEqual(['Local file `another-gitlab-ci.yml` does not exist!']);
  });
});

describe('GET /projects/:id/ci/lint', () => {
  it("lints the project's .gitlab-ci.yml at the default branch", async () => {
    const res = await check();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ valid: true, errors: [], warnings: [], merged_yaml: MERGED, includes: [include('another-gitlab-ci.yml')] });
    expect((await check('?include_jobs=true')).body.jobs.map((j: any) => j.name)).toEqual(['another_test', 'test']);
  });

  it('reads the file at content_ref or sha (mutually exclusive), and 404s an unknown ref', async () => {
    const later = await commit(project.id, owner.token, 'broken', [{ action: 'update', file_path: '.gitlab-ci.yml', content: INVALID }], 'main');
    const broken = await check('?content_ref=broken');
    expect(broken.body).toEqual({ valid: false, errors: ['jobs config should contain at least one visible job'], warnings: [], merged_yaml: `---\n${INVALID}`, includes: [] });
    expect((await check(`?sha=${later}`)).body.valid).toBe(false);
    expect((await check(`?sha=${sha}`)).body.valid).toBe(true);
    expect(await check(`?sha=${sha}&content_ref=main`)).toMatchObject({ status: 400, body: { error: 'sha, content_ref are mutually exclusive' } });
    expect(await check('?ref=main&dry_run_ref=main')).toMatchObject({ status: 400, body: { error: 'ref, dry_run_ref are mutually exclusive' } });
    expect(await check('?content_ref=unknown')).toMatchObject({ status: 404, body: { message: '404 Commit Not Found' } });
  });

  it("reads the project's ci_config_path, and says so when the file is missing", async () => {
    await t.server.database.prisma.project.update({ where: { id: project.id }, data: { ciConfigPath: 'ci/pipeline.yml' } });
    try {
      expect((await check('?include_jobs=true')).body.jobs.map((j: any) => j.name)).toEqual(['custom']);
      await t.server.database.prisma.project.update({ where: { id: project.id }, data: { ciConfigPath: 'ci/missing.yml' } });
      expect((await check()).body).toEqual({ valid: false, errors: ['Please provide content of .gitlab-ci.yml'], warnings: [], merged_yaml: null, includes: null });
    } finally {
      await t.server.database.prisma.project.update({ where: { id: project.id }, data: { ciConfigPath: null } });
    }
  });

  it('needs read access to the code: Reporter yes, Guest 403, non-member 404; a dry run needs Developer', async () => {
    expect((await check('', reporter.token)).body.valid).toBe(true);
    expect(await check('', guest.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await check('', stranger.token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await check('', null)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect((await check('?dry_run=true', reporter.token)).body).toEqual({
      valid: false, errors: ['Insufficient permissions to create a new pipeline'], warnings: [], merged_yaml: null, includes: null,
    });
    expect((await check('?dry_run=true')).body.valid).toBe(true);
  });

  it('answers 404 Repository Not Found for an empty repository, and lints a public project anonymously', async () => {
    const empty = await createProject(t, owner.token);
    expect(await check('', owner.token, empty.id)).toMatchObject({ status: 404, body: { message: '404 Repository Not Found' } });
    const open = await createProject(t, owner.token, { visibility: 'public' });
    await commit(open.id, owner.token, 'main', [{ action: 'create', file_path: '.gitlab-ci.yml', content: 'test:\n  script: echo 1\n' }]);
    expect((await check('', null, open.id)).body).toMatchObject({ valid: true, errors: [], warnings: [] });
  });
});

describe('GraphQL ciConfig', () => {
  const query = `query($path: ID!, $content: String, $dryRun: Boolean) {
    ciConfig(projectPath: $path, content: $content, dryRun: $dryRun) {
      status errors warnings mergedYaml
      includes { type location contextProject contextSha extra }
      stages { count nodes { name groups { nodes { name size jobs { nodes { name groupName stage script beforeScript afterScript allowFailure when tags environment only { refs } except { refs } needs { nodes { name } } } } } } } }
    }
  }`;

  it('answers GitLab CiConfig with stages, groups (parallel jobs together) and jobs', async () => {
    const content = 'build:\n  stage: build\n  script: make\n  parallel: 2\ntest:\n  script: rspec\n  needs: [build]\n';
    const res = await t.graphql(query, { path: project.path_with_namespace, content }, developer.token);
    expect(res.body.errors).toBeUndefined();
    const config = res.body.data.ciConfig;
    expect(config).toMatchObject({ status: 'VALID', errors: [], warnings: [], includes: [] });
    expect(config.stages.count).toBe(2);
    const [build, test] = config.stages.nodes;
    expect(build.name).toBe('build');
    expect(build.groups.nodes).toEqual([
      {
        name: 'build',
        size: 2,
        jobs: {
          nodes: ['build 1/2', 'build 2/2'].map((name) => ({
            name, groupName: 'build', stage: 'build', script: ['make'], beforeScript: [], afterScript: [], allowFailure: false, when: 'on_success',
            tags: [], environment: null, only: { refs: ['branches', 'tags'] }, except: null, needs: { nodes: [] },
          })),
        },
      },
    ]);
    expect(test.groups.nodes[0].jobs.nodes[0].needs.nodes).toEqual([{ name: 'build 1/2' }, { name: 'build 2/2' }]);
  });

  it("answers INVALID with errors and no stages, and lints the project's file without content", async () => {
    const invalid = await t.graphql(query, { path: project.path_with_namespace, content: INVALID }, developer.token);
    expect(invalid.body.data.ciConfig).toMatchObject({ status: 'INVALID', errors: ['jobs config should contain at least one visible job'], stages: { count: 0, nodes: [] } });
    const own = await t.graphql(query, { path: project.path_with_namespace }, reporter.token);
    expect(own.body.data.ciConfig).toMatchObject({ status: 'VALID', includes: [{ type: 'local', location: 'another-gitlab-ci.yml', contextProject: project.path_with_namespace, contextSha: sha, extra: {} }] });
  });

  it('refuses content from a Reporter and hides a private project from strangers', async () => {
    const forbidden = await t.graphql(query, { path: project.path_with_namespace, content: ROOT_CONFIG }, reporter.token);
    expect(forbidden.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const hidden = await t.graphql(query, { path: project.path_with_namespace, content: ROOT_CONFIG }, stranger.token);
    expect(hidden.body.errors?.[0]).toMatchObject({ message: '404 Project Not Found', extensions: { code: 'NOT_FOUND' } });
  });
});

describe('@gitbeaker/rest Lint', () => {
  it('lints given content and the project configuration', async () => {
    const api = new Gitlab({ host: t.url, token: developer.token });
    const result = await api.Lint.lint(project.id, ROOT_CONFIG, { includeJobs: true });
    expect(result).toMatchObject({ valid: true, errors: [], merged_yaml: MERGED });
    expect((result.jobs as { name: string }[]).map((j) => j.name)).toEqual(['another_test', 'test']);
    const own = await api.Lint.check(project.id, {});
    expect(own).toMatchObject({ valid: true, errors: [], warnings: [] });
    await expect(new Gitlab({ host: t.url, token: reporter.token }).Lint.lint(project.id, ROOT_CONFIG)).rejects.toThrow(/Forbidden/);
  });
});
