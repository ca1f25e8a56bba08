/** Pipeline schedules over REST: GitLab's shapes, statuses and errors, the permission matrix, and gitbeaker. */
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

const CI = 'build:\n  script: echo "$SCHEDULED"\n  rules:\n    - if: $CI_PIPELINE_SOURCE == "schedule"\n';

let owner: TestUser;
let maintainer: TestUser;
let developer: TestUser;
let reporter: TestUser;
let guest: TestUser;
let stranger: TestUser;
let project: { id: number; path_with_namespace: string };

beforeAll(async () => {
  [owner, maintainer, developer, reporter, guest, stranger] = await Promise.all([1, 2, 3, 4, 5, 6].map(() => createUser(t)));
  project = await createProject(t, owner.token);
  const commit = await t.api('POST', `/projects/${project.id}/repository/commits`, {
    token: owner.token,
    body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: CI }] },
  });
  expect(commit.status).toBe(201);
  await t.api('POST', `/projects/${project.id}/repository/tags`, { token: owner.token, body: { tag_name: 'v1', ref: 'main' } });
  // main is protected (Maintainers push): Developers schedule pipelines of a branch of their own.
  await t.api('POST', `/projects/${project.id}/repository/branches`, { token: owner.token, body: { branch: 'feature', ref: 'main' } });
  for (const [user, level] of [[maintainer, 40], [developer, 30], [reporter, 20], [guest, 10]] as const) await addMember(t, owner.token, 'projects', project.id, user.id, level);
});

const path = (suffix = '') => `/projects/${project.id}/pipeline_schedules${suffix}`;

async function createSchedule(token: string, body: Record<string, unknown> = {}) {
  const res = await t.api('POST', path(), { token, body: { description: 'nightly', ref: 'main', cron: '0 1 * * *', ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

describe('pipeline schedules over REST', () => {
  it('creates a schedule with GitLab keys, a full ref and its next run', async () => {
    const res = await t.api('POST', path(), { token: developer.token, body: { description: 'nightly', ref: 'feature', cron: '0 1 * * *', cron_timezone: 'Pacific Time (US & Canada)' } });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['active', 'created_at', 'cron', 'cron_timezone', 'description', 'id', 'last_pipeline', 'next_run_at', 'owner', 'ref', 'updated_at', 'variables']);
    expect(res.body).toMatchObject({ description: 'nightly', ref: 'refs/heads/feature', cron: '0 1 * * *', cron_timezone: 'Pacific Time (US & Canada)', active: true, last_pipeline: null, variables: [], owner: { username: developer.username } });
    const next = new Date(res.body.next_run_at);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect([8, 9]).toContain(next.getUTCHours());
    expect(next.getUTCMinutes()).toBe(0);
  });
});
