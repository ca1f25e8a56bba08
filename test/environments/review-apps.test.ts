/**
 * `DELETE /projects/:id/environments/review_apps` (lib/api/environments.rb, Environments::ScheduleToDeleteReviewAppsService):
 * the stopped environments of the `review/` folder created before `before` (default 30 days ago), oldest first, at
 * most `limit` (1..1000, default 100), as EnvironmentBasic; a dry run (the default) marks nothing, otherwise each
 * gets `auto_delete_at` a week out (GraphQL's autoDeleteAt) and the recurring cleanup deletes it once that passed.
 * Reporters get GitLab's 401, finding nothing GitLab's 400, both as `{"message": {…}}`.
 */
import { describe, expect, it } from 'vitest';
import { eventually } from '../runners/support.js';
import { addMember, createProject, createUser } from '../support/factories.js';
import { suiteServer } from '../support/server.js';

const t = suiteServer();
const NOTHING =
  'No environments found for scheduled deletion. Either your query did not match any environments (default parameters match environments that are 30 days or older), or you have insufficient permissions to delete matching environments.';

describe('review apps cleanup', () => {
  it('schedules stopped review apps for deletion, and deletes them once due', async () => {
    const project = await createProject(t, t.rootToken);
    const env = async (name: string, stop: boolean) => {
      const made = await t.api('POST', `/projects/${project.id}/environments`, { body: { name } });
      expect(made.status, made.text).toBe(201);
      if (stop) expect((await t.api('POST', `/projects/${project.id}/environments/${made.body.id}/stop`)).status).toBe(200);
      return made.body as { id: number; name: string };
    };
    const a = await env('review/a', true);
    const b = await env('review/b', true);
    await env('review/running', false);
    await env('staging', true);
    const path = `/projects/${project.id}/environments/review_apps`;
    const soon = new Date(Date.now() + 60_000).toISOString();

    // The defaults: only environments 30 days old, none here.
    const none = await t.api('DELETE', path);
    expect(none.status).toBe(400);
    expect(none.body).toEqual({ message: { scheduled_entries: [], unprocessable_entries: [], message: NOTHING } });

    const reporter = await createUser(t);
    await addMember(t, t.rootToken, 'projects', project.id, reporter.id, 20);
    const refused = await t.api('DELETE', `${path}?before=${soon}`, { token: reporter.token });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ message: { scheduled_entries: [], unprocessable_entries: [], message: 'You do not have permission to destroy environments in this project' } });
    const stranger = await createUser(t);
    expect((await t.api('DELETE', `${path}?before=${soon}`, { token: stranger.token })).status).toBe(404);

    expect((await t.api('DELETE', `${path}?limit=0`)).body).toEqual({ error: 'limit does not have a valid value' });
    expect((await t.api('DELETE', `${path}?limit=1001`)).status).toBe(400);

    const dry = await t.api('DELETE', `${path}?before=${soon}`);
    expect(dry.status).toBe(200);
    expect(dry.body.unprocessable_entries).toEqual([]);
    expect(dry.body.scheduled_entries.map((e: { id: number }) => e.id)).toEqual([a.id, b.id]);
    expect(Object.keys(dry.body.scheduled_entries[0]).sort()).toEqual(['created_at', 'external_url', 'id', 'name', 'slug', 'updated_at']);
    const autoDeleteAt = async (id: number) =>
      (await t.graphql(`{ project(fullPath: "${project.path_with_namespace}") { environment(name: "${id === a.id ? 'review/a' : 'review/b'}") { autoDeleteAt } } }`)).body.data.project.environment.autoDeleteAt;
    expect(await autoDeleteAt(a.id)).toBeNull();

    const one = await t.api('DELETE', `${path}?before=${soon}&limit=1&dry_run=false`);
    expect(one.status).toBe(200);
    expect(one.body.scheduled_entries.map((e: { id: number }) => e.id)).toEqual([a.id]);
    const marked = new Date(await autoDeleteAt(a.id)).getTime();
    expect(Math.abs(marked - (Date.now() + 7 * 86_400_000))).toBeLessThan(120_000);
    expect(await autoDeleteAt(b.id)).toBeNull();
    // Scheduled once: the next request finds only the other.
    expect((await t.api('DELETE', `${path}?before=${soon}`)).body.scheduled_entries.map((e: { id: number }) => e.id)).toEqual([b.id]);

    // The week passes: the recurring cleanup is made due and woken, and deletes it (and only it).
    const db = t.server.database.prisma;
    await db.environment.update({ where: { id: a.id }, data: { autoDeleteAt: new Date(Date.now() - 1000) } });
    await db.$executeRaw`UPDATE "jobs" SET "runAt" = now() WHERE "uniqueKey" = 'recurring:environments.auto_delete' AND "status" = 'queued'`;
    t.server.app.jobs.wake();
    await eventually(async () => (await t.api('GET', `/projects/${project.id}/environments/${a.id}`)).status === 404);
    expect((await t.api('GET', `/projects/${project.id}/environments/${b.id}`)).status).toBe(200);
  });
});
