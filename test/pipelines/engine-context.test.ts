/**
 * What the CI configuration engine sees of a real pipeline (issue 32): the commit's file list, for wildcard
 * `include: local` and `rules: exists` globs, and the instance's, group's and project's CI/CD variables with the
 * pipeline's own, in include paths and `rules: if`; protected variables only on protected refs.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

const CI = `include:
  - local: 'ci/**.yml'
  - local: $BASE
deploy:
  script: echo
  rules:
    - if: '$DEPLOY == "yes" && $FROM_GROUP == "g" && $FROM_INSTANCE == "i"'
secret:
  script: echo
  rules:
    - if: $SECRET
docs:
  script: echo
  rules:
    - exists: ['docs/**/*.md']
`;

let owner: TestUser;
let project: { id: number };

const jobNames = async (ref: string, variables: { key: string; value: string }[] = []) => {
  const created = await t.api('POST', `/projects/${project.id}/pipeline`, { token: owner.token, body: { ref, variables } });
  expect(created.status).toBe(201);
  const jobs = await t.api('GET', `/projects/${project.id}/pipelines/${created.body.id}/jobs?per_page=100`, { token: owner.token });
  return (jobs.body as { name: string }[]).map((job) => job.name).sort();
};

beforeAll(async () => {
  owner = await createUser(t);
  const admin = await createUser(t, { admin: true });
  const group = await createGroup(t, owner.token);
  project = await createProject(t, owner.token, { namespaceId: group.id });
  const files: Record<string, string> = {
    '.gitlab-ci.yml': CI,
    'ci/lint.yml': 'lint:\n  script: echo\n',
    'ci/nested/unit.yml': 'unit:\n  script: echo\n',
    'base.yml': 'base:\n  script: echo\n',
    'docs/guide/intro.md': '# intro\n',
  };
  const commit = await t.api('POST', `/projects/${project.id}/repository/commits`, {
    token: owner.token,
    body: { branch: 'main', commit_message: 'CI', actions: Object.entries(files).map(([file_path, content]) => ({ action: 'create', file_path, content })) },
  });
  expect(commit.status).toBe(201);
  expect((await t.api('POST', `/projects/${project.id}/repository/branches`, { token: owner.token, body: { branch: 'feature', ref: 'main' } })).status).toBe(201);
  for (const body of [
    { key: 'BASE', value: 'base.yml' },
    { key: 'DEPLOY', value: 'yes' },
    { key: 'SECRET', value: 's', protected: true },
    { key: 'HIDDEN', value: 'hidden-name-1', masked: true },
  ]) {
    expect((await t.api('POST', `/projects/${project.id}/variables`, { token: owner.token, body })).status).toBe(201);
  }
  expect((await t.api('POST', `/groups/${group.id}/variables`, { token: owner.token, body: { key: 'FROM_GROUP', value: 'g' } })).status).toBe(201);
  expect((await t.api('POST', '/admin/ci/variables', { token: admin.token, body: { key: 'FROM_INSTANCE', value: 'i' } })).status).toBe(201);
});

describe('a pipeline’s configuration context', () => {
  it('includes a component of another project of this instance at a tag, with inputs', async () => {
    const components = await createProject(t, owner.token);
    const template = 'spec:\n  inputs:\n    target:\n---\ncheck-$[[ inputs.target ]]:\n  script: echo $[[ inputs.target ]]\n';
    const commit = await t.api('POST', `/projects/${components.id}/repository/commits`, {
      token: owner.token,
      body: { branch: 'main', commit_message: 'component', actions: [{ action: 'create', file_path: 'templates/check/template.yml', content: template }] },
    });
    expect(commit.status).toBe(201);
    expect((await t.api('POST', `/projects/${components.id}/repository/tags`, { token: owner.token, body: { tag_name: '1.0.0', ref: 'main' } })).status).toBe(201);
    const ci = `include:\n  - component: $CI_SERVER_FQDN/${components.path_with_namespace}/check@1.0.0\n    inputs: {target: docs}\n`;
    const app = await createProject(t, owner.token);
    await t.api('POST', `/projects/${app.id}/repository/commits`, {
      token: owner.token,
      body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: ci }] },
    });
    const created = await t.api('POST', `/projects/${app.id}/pipeline`, { token: owner.token, body: { ref: 'main' } });
    expect(created.status).toBe(201);
    const jobs = await t.api('GET', `/projects/${app.id}/pipelines/${created.body.id}/jobs`, { token: owner.token });
    expect((jobs.body as { name: string }[]).map((job) => job.name)).toEqual(['check-docs']);
    // A project the pipeline's user may not read is no component source.
    const stranger = await createUser(t);
    const other = await createProject(t, stranger.token);
    await t.api('POST', `/projects/${other.id}/repository/commits`, {
      token: stranger.token,
      body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: ci }] },
    });
    const refused = await t.api('POST', `/projects/${other.id}/pipeline`, { token: stranger.token, body: { ref: 'main' } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain(`Component 'gitlab.example.com/${components.path_with_namespace}/check@1.0.0' - content not found`);
  });

  it('sees the commit’s files and the CI/CD variables, protected ones on a protected branch', async () => {
    expect(await jobNames('main')).toEqual(['base', 'deploy', 'docs', 'lint', 'secret', 'unit']);
  });

  it('leaves protected variables out on an unprotected branch', async () => {
    expect(await jobNames('feature')).toEqual(['base', 'deploy', 'docs', 'lint', 'unit']);
  });

  it('shows masked variables as [MASKED] in configuration errors', async () => {
    await t.api('POST', `/projects/${project.id}/repository/commits`, {
      token: owner.token,
      body: { branch: 'masked', start_branch: 'main', commit_message: 'CI', actions: [{ action: 'update', file_path: '.gitlab-ci.yml', content: "include: '$HIDDEN.yml'\n" }] },
    });
    const refused = await t.api('POST', `/projects/${project.id}/pipeline`, { token: owner.token, body: { ref: 'masked' } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ message: { base: ['Local file `[MASKED].yml` does not exist!'] } });
  });

  it('gives CI Lint’s dry run the variables the pipeline would see', async () => {
    const lint = await t.api('POST', `/projects/${project.id}/ci/lint`, { token: owner.token, body: { content: CI, dry_run: true, ref: 'main', include_jobs: true } });
    expect(lint.status).toBe(200);
    expect((lint.body.jobs as { name: string }[]).map((job) => job.name).sort()).toEqual(['base', 'deploy', 'docs', 'lint', 'secret', 'unit']);
  });

  it('lets the pipeline’s own variables override the CI/CD variables', async () => {
    expect(await jobNames('feature', [{ key: 'DEPLOY', value: 'no' }])).toEqual(['base', 'docs', 'lint', 'unit']);
  });
});
