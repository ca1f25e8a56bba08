/**
 * GitLab's issuable subscriptions over graphql-ws (issuableTitleUpdated, issuableLabelsUpdated, …): each hears its
 * part of the issue changing, whichever path changed it; only readers of the issue may subscribe, and a subscriber
 * who loses access hears nothing more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();
let owner: TestUser;
let reporter: TestUser;
let guest: TestUser;
let stranger: TestUser;
let project: any;
let group: { id: number };

const SELECTION = '... on Issue { id iid title description dueDate weight healthStatus epic { iid } milestone { title } labels { nodes { title } } assignees { nodes { username } } }';
const query = (field: string) => `subscription($id: IssuableID!) { ${field}(issuableId: $id) { __typename ${SELECTION} } }`;

interface Heard {
  values: any[];
  errors: any[];
  ended: Promise<void>;
  /** Resolves with the first value heard (or already heard) that passes `test`. */
  next(test: (value: any) => boolean): Promise<any>;
}

const clients: Client[] = [];
function listen(token: string, field: string, issueGid: string): Heard {
  const client = createClient({ url: `${t.url.replace('http', 'ws')}/api/graphql`, webSocketImpl: WebSocket, connectionParams: { 'PRIVATE-TOKEN': token }, retryAttempts: 0 });
  clients.push(client);
  const values: any[] = [];
  const errors: any[] = [];
  const waiters: Array<() => void> = [];
  const wake = () => waiters.splice(0).forEach((w) => w());
  const ended = new Promise<void>((resolve) => {
    client.subscribe(
      { query: query(field), variables: { id: issueGid } },
      {
        next: (msg: any) => {
          if (msg.errors) errors.push(...msg.errors);
          if (msg.data?.[field]) values.push(msg.data[field]);
          wake();
        },
        error: (err) => {
          errors.push(...(Array.isArray(err) ? err : [err]));
          wake();
          resolve();
        },
        complete: () => {
          wake();
          resolve();
        },
      },
    );
  });
  const next = (test: (value: any) => boolean) =>
    new Promise<any>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not heard: ${JSON.stringify({ values, errors }).slice(0, 500)}`)), 10_000);
      const check = () => {
        const found = values.find(test);
        if (found) {
          clearTimeout(timer);
          resolve(found);
        } else waiters.push(check);
      };
      check();
    });
  return { values, errors, ended, next };
}

afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
});

beforeAll(async () => {
  [owner, reporter, guest, stranger] = await Promise.all([createUser(t), createUser(t), createUser(t), createUser(t)]);
  // In a group, for the issue's epics; the reporter reads those as a Reporter of the group.
  group = await createGroup(t, owner.token, { visibility: 'private' });
  project = await createProject(t, owner.token, { visibility: 'private', namespaceId: group.id });
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
  await addMember(t, owner.token, 'groups', group.id, reporter.id, 20);
  await addMember(t, owner.token, 'projects', project.id, guest.id, 10);
});

async function newIssue(body: Record<string, unknown> = {}) {
  const res = await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'Watched', ...body } });
  expect(res.status).toBe(201);
  return { ...res.body, gid: `gid://gitlab/Issue/${res.body.id}` };
}

const update = (iid: number, body: Record<string, unknown>) => t.api('PUT', `/projects/${project.id}/issues/${iid}`, { token: owner.token, body });

/**
 * graphql-ws does not acknowledge a subscription: retitles the issue until every subscription to its title has
 * heard a title, so that they listen for what follows.
 */
async function untilListening(iid: number, subscriptions: Heard[]): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const title = `Ready ${attempt}`;
    await update(iid, { title });
    const heard = Promise.all(subscriptions.map((s) => s.next((v) => v.title === title)));
    const outcome = await Promise.race([heard, new Promise((r) => setTimeout(r, 250, 'not yet'))]);
    if (outcome !== 'not yet' || attempt === 40) return void (await heard);
  }
}

describe('issuable subscriptions', () => {
  it('each field hears its part of the issue change, as the Issuable union’s Issue', async () => {
    const issue = await newIssue();
    const milestones = await Promise.all(['v1', 'v2'].map(async (title) => (await t.api('POST', `/projects/${project.id}/milestones`, { token: owner.token, body: { title } })).body));
    const title = listen(reporter.token, 'issuableTitleUpdated', issue.gid);
    await untilListening(issue.iid, [title]);
    expect(title.values.at(-1)).toMatchObject({ __typename: 'Issue', id: issue.gid, iid: String(issue.iid) });
    const heardTitles = title.values.length;
    // Each change made, a different value each attempt, until its subscription hears it.
    const cases: Array<[string, (attempt: number) => Record<string, unknown>, (value: any, attempt: number) => boolean]> = [
      ['issuableLabelsUpdated', (n) => ({ labels: `label-${n}` }), (v, n) => v.labels.nodes[0]?.title === `label-${n}`],
      ['issuableAssigneesUpdated', (n) => ({ assignee_ids: [n % 2 ? owner.id : reporter.id] }), (v, n) => v.assignees.nodes[0]?.username === (n % 2 ? owner : reporter).username],
      ['issuableDescriptionUpdated', (n) => ({ description: `Described ${n}` }), (v, n) => v.description === `Described ${n}`],
      ['issuableDatesUpdated', (n) => ({ due_date: `2031-05-${String(n + 1).padStart(2, '0')}` }), (v, n) => v.dueDate === `2031-05-${String(n + 1).padStart(2, '0')}T00:00:00.000Z`],
      ['issuableMilestoneUpdated', (n) => ({ milestone_id: milestones[n % 2].id }), (v, n) => v.milestone?.title === milestones[n % 2].title],
      ['issuableWeightUpdated', (n) => ({ weight: n + 1 }), (v, n) => v.weight === n + 1],
    ];
    for (const [field, change, heard] of cases) {
      const sub = listen(reporter.token, field, issue.gid);
      for (let n = 0; ; n++) {
        expect((await update(issue.iid, change(n))).status).toBe(200);
        const got = await Promise.race([sub.next((v) => heard(v, n)), new Promise((r) => setTimeout(r, 250, null))]);
        if (got) {
          expect(got).toMatchObject({ __typename: 'Issue', id: issue.gid });
          break;
        }
        if (n === 30) throw new Error(`${field} heard nothing: ${JSON.stringify(sub.errors)}`);
      }
    }
    // Through GraphQL's own mutation as well.
    const weight = listen(reporter.token, 'issuableWeightUpdated', issue.gid);
    for (let n = 100; ; n++) {
      const res = await t.graphql(`mutation($path: ID!, $iid: String!, $w: Int!) { issueSetWeight(input: { projectPath: $path, iid: $iid, weight: $w }) { errors } }`, { path: project.path_with_namespace, iid: String(issue.iid), w: n }, owner.token);
      expect(res.body.data.issueSetWeight.errors).toEqual([]);
      if (await Promise.race([weight.next((v) => v.weight === n), new Promise((r) => setTimeout(r, 250, null))])) break;
      if (n === 130) throw new Error('issueSetWeight heard nothing');
    }
    // The health status through GraphQL's updateIssue, and the epic through the Issues API's epic_id.
    const health = listen(reporter.token, 'issuableHealthStatusUpdated', issue.gid);
    const statuses = ['onTrack', 'needsAttention', 'atRisk'];
    for (let n = 0; ; n++) {
      const res = await t.graphql(
        `mutation($path: ID!, $iid: String!, $h: HealthStatus) { updateIssue(input: { projectPath: $path, iid: $iid, healthStatus: $h }) { errors } }`,
        { path: project.path_with_namespace, iid: String(issue.iid), h: statuses[n % 3] },
        owner.token,
      );
      expect(res.body.data.updateIssue.errors).toEqual([]);
      if (await Promise.race([health.next((v) => v.healthStatus === statuses[n % 3]), new Promise((r) => setTimeout(r, 250, null))])) break;
      if (n === 30) throw new Error('issuableHealthStatusUpdated heard nothing');
    }
    const epics = await Promise.all(['e1', 'e2'].map(async (name) => (await t.api('POST', `/groups/${group.id}/epics`, { token: owner.token, body: { title: name } })).body));
    const epicHeard = listen(reporter.token, 'issuableEpicUpdated', issue.gid);
    for (let n = 0; ; n++) {
      expect((await update(issue.iid, { epic_id: epics[n % 2].id })).status).toBe(200);
      if (await Promise.race([epicHeard.next((v) => v.epic?.iid === String(epics[n % 2].iid)), new Promise((r) => setTimeout(r, 250, null))])) break;
      if (n === 30) throw new Error(`issuableEpicUpdated heard nothing: ${JSON.stringify(epicHeard.errors)}`);
    }
    // The title subscription, listening all along, heard none of those changes.
    expect(title.values.length).toBe(heardTitles);
  });

  it('only those who may read the issue subscribe: others get `Unauthorized subscription`', async () => {
    const open = await newIssue();
    const secret = await newIssue({ confidential: true });
    const outsider = listen(stranger.token, 'issuableTitleUpdated', open.gid);
    await outsider.ended;
    expect(outsider.errors.map((e) => e.message)).toEqual(['Unauthorized subscription']);
    const guestOnSecret = listen(guest.token, 'issuableLabelsUpdated', secret.gid);
    await guestOnSecret.ended;
    expect(guestOnSecret.errors.map((e) => e.message)).toEqual(['Unauthorized subscription']);
    const missing = listen(owner.token, 'issuableTitleUpdated', 'gid://gitlab/Issue/999999');
    await missing.ended;
    expect(missing.errors.map((e) => e.message)).toEqual(['Unauthorized subscription']);
    const wrongType = listen(owner.token, 'issuableTitleUpdated', `gid://gitlab/Project/${project.id}`);
    await wrongType.ended;
    expect(wrongType.errors[0].message).toContain(`does not represent an instance of Issuable`);
    expect(outsider.values).toEqual([]);
  });

  it('a subscriber who loses access hears nothing more, while others still hear', async () => {
    const issue = await newIssue();
    const leaving = await createUser(t);
    await addMember(t, owner.token, 'projects', project.id, leaving.id, 20);
    const removed = listen(leaving.token, 'issuableTitleUpdated', issue.gid);
    const stays = listen(reporter.token, 'issuableTitleUpdated', issue.gid);
    await untilListening(issue.iid, [removed, stays]);
    const heard = removed.values.length;
    expect((await t.api('DELETE', `/projects/${project.id}/members/${leaving.id}`, { token: owner.token })).status).toBe(204);
    await update(issue.iid, { title: 'After removal' });
    await stays.next((v) => v.title === 'After removal');
    await removed.ended;
    expect(removed.values.length).toBe(heard);
  });

  it('an issue made confidential stops a Guest’s subscription', async () => {
    const issue = await newIssue();
    const watching = listen(guest.token, 'issuableTitleUpdated', issue.gid);
    const owning = listen(owner.token, 'issuableTitleUpdated', issue.gid);
    await untilListening(issue.iid, [watching, owning]);
    const heard = watching.values.length;
    await update(issue.iid, { confidential: true, title: 'Hidden now' });
    await owning.next((v) => v.title === 'Hidden now');
    await watching.ended;
    expect(watching.values.length).toBe(heard);
  });
});
