/**
 * Incident SLAs (GitLab Premium's SLA countdown timer): the project's incident management settings (this server's
 * own mutation: GitLab sets them in its UI only), the SLA an incident gets from them (CreateSlaService: due the
 * timer's minutes after the incident's creation), `Issue.slaDueAt`, `issuable_closed` as the incident closes and
 * reopens, IssueSort's SLA_DUE_AT_ASC/DESC (incidents only, those without an SLA last, ties newest first), and the
 * recurring check that gives incidents past their SLA the `missed::SLA` label as the alert bot.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';
import { SLA_EXCEEDED_CHECK_JOB } from '../../src/modules/incident_management/jobs.js';

let counting = false;
const queries: string[] = [];
const t = suiteServer({}, { onQuery: (sql) => counting && queries.push(sql) });

let owner: TestUser;
let reporter: TestUser;
let project: { id: number; path_with_namespace: string };

const SETTING = `query($p: ID!) { project(fullPath: $p) { incidentManagementSetting { slaTimer slaTimerMinutes } } }`;
const UPDATE = `mutation($input: ProjectIncidentManagementSettingUpdateInput!) {
  projectIncidentManagementSettingUpdate(input: $input) { clientMutationId errors incidentManagementSetting { slaTimer slaTimerMinutes } }
}`;

const update = (input: Record<string, unknown>, token = owner.token) => t.graphql(UPDATE, { input: { fullPath: project.path_with_namespace, ...input } }, token);

async function setTimer(slaTimer: boolean, slaTimerMinutes: number | null) {
  const res = await update({ slaTimer, slaTimerMinutes });
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data!.projectIncidentManagementSettingUpdate.errors).toEqual([]);
}

/** Creates an issue over REST, created at `createdAt` (Owners may set it). */
async function issue(title: string, createdAt: string, issueType = 'incident'): Promise<number> {
  const res = await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title, issue_type: issueType, created_at: createdAt } });
  expect(res.status).toBe(201);
  return res.body.iid;
}

async function slaDueAt(iid: number, token = owner.token): Promise<string | null> {
  const res = await t.graphql(`query($p: ID!, $iid: String!) { project(fullPath: $p) { issue(iid: $iid) { slaDueAt } } }`, { p: project.path_with_namespace, iid: String(iid) }, token);
  expect(res.body.errors).toBeUndefined();
  return res.body.data.project.issue.slaDueAt;
}

async function sorted(sort: string, first = 100, after?: string) {
  const res = await t.graphql(
    `query($p: ID!, $first: Int, $after: String) { project(fullPath: $p) { issues(sort: ${sort}, state: all, first: $first, after: $after) { count nodes { title slaDueAt } pageInfo { endCursor hasNextPage } } } }`,
    { p: project.path_with_namespace, first, after },
    owner.token,
  );
  expect(res.body.errors).toBeUndefined();
  return res.body.data.project.issues;
}

async function paged(sort: string, size: number) {
  const titles: string[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await sorted(sort, size, after);
    titles.push(...page.nodes.map((n: { title: string }) => n.title));
    if (!page.pageInfo.hasNextPage) return titles;
    after = page.pageInfo.endCursor;
  }
}

beforeAll(async () => {
  owner = await createUser(t);
  reporter = await createUser(t);
  project = await createProject(t, owner.token);
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
});

describe('incident management settings', () => {
  it('reads GitLab defaults until set, to Maintainers only', async () => {
    const res = await t.graphql(SETTING, { p: project.path_with_namespace }, owner.token);
    expect(res.body.data.project.incidentManagementSetting).toEqual({ slaTimer: false, slaTimerMinutes: null });
    const asReporter = await t.graphql(SETTING, { p: project.path_with_namespace }, reporter.token);
    expect(asReporter.body.errors).toBeUndefined();
    expect(asReporter.body.data.project.incidentManagementSetting).toBeNull();
  });

  it('refuses a Reporter as a missing resource', async () => {
    const res = await update({ slaTimer: true, slaTimerMinutes: 30 }, reporter.token);
    expect(res.body.data!.projectIncidentManagementSettingUpdate).toBeNull();
    expect(res.body.errors![0].message).toBe("The resource that you are attempting to access does not exist or you don't have permission to perform this action");
    const unknown = await t.graphql(UPDATE, { input: { fullPath: 'nobody/nothing', slaTimer: false } }, owner.token);
    expect(unknown.body.errors![0].message).toBe("The resource that you are attempting to access does not exist or you don't have permission to perform this action");
  });

  it("validates the timer's minutes as GitLab's model does, in the payload's errors", async () => {
    for (const [input, message] of [
      [{ slaTimer: true }, "Sla timer minutes can't be blank"],
      [{ slaTimer: true, slaTimerMinutes: 14 }, 'Sla timer minutes must be greater than or equal to 15'],
      [{ slaTimer: true, slaTimerMinutes: 525_950 }, 'Sla timer minutes must be less than or equal to 525949'],
    ] as const) {
      const res = await update({ ...input, clientMutationId: 'm' });
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data!.projectIncidentManagementSettingUpdate).toEqual({ clientMutationId: 'm', errors: [message], incidentManagementSetting: null });
    }
    // Off, the minutes are not checked; nothing was saved by the refusals.
    const off = await update({ slaTimerMinutes: 5 });
    expect(off.body.data!.projectIncidentManagementSettingUpdate).toEqual({ clientMutationId: null, errors: [], incidentManagementSetting: { slaTimer: false, slaTimerMinutes: 5 } });
    await setTimer(false, null);
  });
});

describe('incident SLAs', () => {
  it('gives no SLA while the timer is off', async () => {
    const iid = await issue('before the timer', '2026-01-01T00:00:00Z');
    expect(await slaDueAt(iid)).toBeNull();
  });

  it("gives a new incident an SLA due the timer's minutes after its creation, and issues none", async () => {
    await setTimer(true, 30);
    expect(await slaDueAt(await issue('incident', '2026-01-01T10:00:00Z'))).toBe('2026-01-01T10:30:00.000Z');
    expect(await slaDueAt(await issue('plain issue', '2026-01-01T10:00:00Z', 'issue'))).toBeNull();
    // GraphQL's createIssue with type INCIDENT too; Reporters read it with the issue.
    const created = await t.graphql(
      `mutation($input: CreateIssueInput!) { createIssue(input: $input) { errors issue { iid createdAt slaDueAt } } }`,
      { input: { projectPath: project.path_with_namespace, title: 'graphql incident', type: 'INCIDENT' } },
      owner.token,
    );
    const made = created.body.data.createIssue.issue;
    expect(new Date(made.slaDueAt).getTime() - new Date(made.createdAt).getTime()).toBe(30 * 60_000);
    expect(await slaDueAt(Number(made.iid), reporter.token)).toBe(made.slaDueAt);
  });

  it('gives an issue that becomes an incident an SLA from its creation time, and keeps it when it stops being one', async () => {
    const iid = await issue('becomes an incident', '2026-02-01T08:00:00Z', 'issue');
    await setTimer(true, 90);
    const changed = await t.api('PUT', `/projects/${project.id}/issues/${iid}`, { token: owner.token, body: { issue_type: 'incident' } });
    expect(changed.status).toBe(200);
    expect(await slaDueAt(iid)).toBe('2026-02-01T09:30:00.000Z');
    // Changing the timer later leaves the SLA as it was; an issue shows none (IssuePresenter#sla_due_at) but keeps it
    // for when it is an incident again.
    await setTimer(true, 15);
    await t.api('PUT', `/projects/${project.id}/issues/${iid}`, { token: owner.token, body: { issue_type: 'issue' } });
    expect(await slaDueAt(iid)).toBeNull();
    await t.api('PUT', `/projects/${project.id}/issues/${iid}`, { token: owner.token, body: { issue_type: 'incident' } });
    expect(await slaDueAt(iid)).toBe('2026-02-01T09:30:00.000Z');
  });

  it('marks the SLA closed as its incident closes and reopens (issuable_closed)', async () => {
    await setTimer(true, 60);
    const iid = await issue('closes', '2026-03-01T00:00:00Z');
    const issueId = (await t.api('GET', `/projects/${project.id}/issues/${iid}`, { token: owner.token })).body.id;
    const closed = async () => (await t.server.app.db.issuableSla.findUniqueOrThrow({ where: { issueId } })).issuableClosed;
    expect(await closed()).toBe(false);
    await t.api('PUT', `/projects/${project.id}/issues/${iid}`, { token: owner.token, body: { state_event: 'close' } });
    expect(await closed()).toBe(true);
    await t.api('PUT', `/projects/${project.id}/issues/${iid}`, { token: owner.token, body: { state_event: 'reopen' } });
    expect(await closed()).toBe(false);
  });
});

describe('SLA_DUE_AT sorts', () => {
  it('lists incidents only, by due time either way, those without an SLA last, ties newest first, across pages', async () => {
    const sort = await createProject(t, owner.token);
    project = sort;
    await issue('no sla', '2026-05-01T00:00:00Z');
    await setTimer(true, 60);
    await issue('due 2', '2026-05-02T00:00:00Z');
    await issue('due 1', '2026-05-01T00:00:00Z');
    await issue('due 3', '2026-05-03T00:00:00Z');
    await issue('due 1 too', '2026-05-01T00:00:00Z');
    await issue('not an incident', '2026-04-01T00:00:00Z', 'issue');
    const asc = ['due 1 too', 'due 1', 'due 2', 'due 3', 'no sla'];
    const desc = ['due 3', 'due 2', 'due 1 too', 'due 1', 'no sla'];
    const first = await sorted('SLA_DUE_AT_ASC');
    expect(first.nodes.map((n: { title: string }) => n.title)).toEqual(asc);
    expect(first.count).toBe(5);
    expect(first.nodes[0].slaDueAt).toBe('2026-05-01T01:00:00.000Z');
    expect((await sorted('SLA_DUE_AT_DESC')).nodes.map((n: { title: string }) => n.title)).toEqual(desc);
    for (const size of [1, 2, 3]) {
      expect(await paged('SLA_DUE_AT_ASC', size)).toEqual(asc);
      expect(await paged('SLA_DUE_AT_DESC', size)).toEqual(desc);
    }
    // The instance list takes them too (the owner's incidents of both projects: the one made now is due last).
    const all = await t.graphql(`{ issues(sort: SLA_DUE_AT_DESC, state: all, first: 2) { nodes { title } } }`, {}, owner.token);
    expect(all.body.errors).toBeUndefined();
    expect(all.body.data.issues.nodes.map((n: { title: string }) => n.title)).toEqual(['graphql incident', 'due 3']);
  });

  it("reads a page's SLAs in one query", async () => {
    queries.length = 0;
    counting = true;
    try {
      const page = await sorted('CREATED_DESC');
      expect(page.nodes.filter((n: { slaDueAt: string | null }) => n.slaDueAt)).toHaveLength(4);
    } finally {
      counting = false;
    }
    expect(queries.filter((q) => q.includes('issuable_slas'))).toHaveLength(1);
  });

  it('is not an order_by of the Issues API, as in GitLab', async () => {
    const res = await t.api('GET', `/projects/${project.id}/issues?order_by=sla_due_at`, { token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'order_by does not have a valid value' });
  });
});

describe('missed::SLA', () => {
  /** Runs the recurring SLA check now, as its schedule would. */
  async function check() {
    await t.server.database.prisma.$executeRaw`UPDATE "jobs" SET "runAt" = now() WHERE "uniqueKey" = ${`recurring:${SLA_EXCEEDED_CHECK_JOB}`} AND "status" = 'queued'`;
    t.server.app.jobs.wake();
    await t.server.app.jobs.drain();
  }
  const labelsOf = async (iid: number) => (await t.api('GET', `/projects/${project.id}/issues/${iid}`, { token: owner.token })).body.labels;
  const labelEvents = async (iid: number) =>
    (await t.api('GET', `/projects/${project.id}/issues/${iid}/resource_label_events`, { token: owner.token })).body.map((e: { action: string; user: { username: string }; label: { name: string } }) => [
      e.action,
      e.user.username,
      e.label.name,
    ]);

  it('labels open incidents past their SLA once, as the alert bot, and no others', async () => {
    project = await createProject(t, owner.token);
    await setTimer(true, 15);
    const past = new Date(Date.now() - 2 * 3600_000).toISOString();
    const late = await issue('late', past);
    const onTime = await issue('on time', new Date().toISOString());
    const closed = await issue('late but closed', past);
    await t.api('PUT', `/projects/${project.id}/issues/${closed}`, { token: owner.token, body: { state_event: 'close' } });
    const demoted = await issue('late, then an issue', past);
    await t.api('PUT', `/projects/${project.id}/issues/${demoted}`, { token: owner.token, body: { issue_type: 'issue' } });
    const labelled = await issue('late, labelled already', past);
    await t.api('PUT', `/projects/${project.id}/issues/${labelled}`, { token: owner.token, body: { add_labels: 'missed::SLA' } });

    await check();
    expect(await labelsOf(late)).toEqual(['missed::SLA']);
    expect(await labelEvents(late)).toEqual([['add', 'alert-bot', 'missed::SLA']]);
    for (const iid of [onTime, closed, demoted]) expect(await labelsOf(iid)).toEqual([]);
    // The label the project had already is used, and not added twice.
    expect(await labelsOf(labelled)).toEqual(['missed::SLA']);
    expect(await labelEvents(labelled)).toEqual([['add', owner.username, 'missed::SLA']]);
    const labels = await t.api('GET', `/projects/${project.id}/labels?search=missed`, { token: owner.token });
    expect(labels.body).toHaveLength(1);
    const applied = await t.server.app.db.issuableSla.findMany({ where: { issue: { projectId: project.id } }, include: { issue: { select: { title: true } } } });
    expect(Object.fromEntries(applied.map((s) => [s.issue.title, s.labelApplied]))).toEqual({
      late: true,
      'on time': false,
      'late but closed': false,
      'late, then an issue': false,
      'late, labelled already': true,
    });

    // Checked again: nothing new. The closed incident, reopened, is labelled at the next check.
    await t.api('PUT', `/projects/${project.id}/issues/${closed}`, { token: owner.token, body: { state_event: 'reopen' } });
    await check();
    expect(await labelEvents(late)).toEqual([['add', 'alert-bot', 'missed::SLA']]);
    expect(await labelEvents(closed)).toEqual([['add', 'alert-bot', 'missed::SLA']]);
  });

  it('made the alert bot an internal user, as GitLab has it', async () => {
    const res = await t.graphql(`{ user(username: "alert-bot") { type human } }`, {}, owner.token);
    expect(res.body.data.user).toEqual({ type: 'ALERT_BOT', human: false });
    const listed = await t.api('GET', '/users?username=alert-bot&exclude_internal=true', { token: owner.token });
    expect(listed.body).toEqual([]);
    const bot = await t.api('GET', '/users?username=alert-bot', { token: owner.token });
    expect(bot.body).toEqual([expect.objectContaining({ username: 'alert-bot', name: 'GitLab Alert Bot' })]);
  });
});
