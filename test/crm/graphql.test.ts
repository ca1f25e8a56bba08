/**
 * Customer relations (GitLab's CRM) over GraphQL: organizations and contacts of root groups with GitLab's validations
 * and words, Group.contacts/organizations (filters, sorts, state counts) from any group of the tree, who reads and
 * who manages them, an issue's contacts (issueSetCrmContacts in its three modes, its limits and refusals), and the
 * system notes the changes leave, read back through REST's Notes API with gitbeaker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { suiteServer } from '../support/server.js';
import { addMember, apiOk, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

let counting = false;
const statements: string[] = [];
const t = suiteServer({}, { onQuery: (sql) => counting && statements.push(sql) });

const RNA = "The resource that you are attempting to access does not exist or you don't have permission to perform this action";
let owner: TestUser;
let reporter: TestUser;
let guest: TestUser;
let projectReporter: TestUser;
let stranger: TestUser;
let group: { id: number; full_path: string };
let subgroup: { id: number; full_path: string };
let other: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string };
let issueIid: number;

beforeAll(async () => {
  [owner, reporter, guest, projectReporter, stranger] = await Promise.all([createUser(t), createUser(t), createUser(t), createUser(t), createUser(t)]);
  group = await createGroup(t, owner.token);
  other = await createGroup(t, owner.token);
  subgroup = await createGroup(t, owner.token, { parentId: group.id });
  project = await createProject(t, owner.token, { namespaceId: subgroup.id });
  await addMember(t, owner.token, 'groups', group.id, reporter.id, 20);
  await addMember(t, owner.token, 'groups', group.id, guest.id, 10);
  await addMember(t, owner.token, 'projects', project.id, projectReporter.id, 20);
  issueIid = (await apiOk(t, owner.token, 'POST', `/projects/${project.id}/issues`, { title: 'Customer bug' })).iid;
});

const gql = async (query: string, variables: Record<string, unknown> = {}, token = owner.token) => {
  const res = await t.graphql<any>(query, variables, token);
  expect(res.status).toBe(200);
  return res.body as { data: any; errors?: { message: string }[] };
};
const ok = async (query: string, variables: Record<string, unknown> = {}, token = owner.token) => {
  const body = await gql(query, variables, token);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
};

const gid = (kind: 'Group' | 'CustomerRelations::Contact' | 'CustomerRelations::Organization', id: number | string) => `gid://gitlab/${kind}/${id}`;
const idOf = (g: string) => Number(g.split('/').pop());

const CREATE_ORG = `mutation($input: CustomerRelationsOrganizationCreateInput!) {
  customerRelationsOrganizationCreate(input: $input) { clientMutationId errors organization { id name defaultRate description active createdAt updatedAt } }
}`;
const CREATE_CONTACT = `mutation($input: CustomerRelationsContactCreateInput!) {
  customerRelationsContactCreate(input: $input) { errors contact { id firstName lastName email phone description active organization { name } } }
}`;
const SET = `mutation($path: ID!, $iid: String!, $ids: [CustomerRelationsContactID!]!, $mode: MutationOperationMode) {
  issueSetCrmContacts(input: { projectPath: $path, iid: $iid, contactIds: $ids, operationMode: $mode }) {
    errors issue { iid customerRelationsContacts { nodes { firstName } } }
  }
}`;

let acme: number;
let globex: number;
const contacts: Record<string, number> = {};

describe('organizations', () => {
  it('creates one in a root group, with GitLab’s global ID and fields', async () => {
    const data = await ok(CREATE_ORG, { input: { groupId: gid('Group', group.id), name: '  Acme  ', defaultRate: 42.5, description: 'Anvils', clientMutationId: 'o1' } });
    const payload = data.customerRelationsOrganizationCreate;
    expect(payload).toMatchObject({ clientMutationId: 'o1', errors: [], organization: { name: 'Acme', defaultRate: 42.5, description: 'Anvils', active: true } });
    expect(payload.organization.id).toMatch(/^gid:\/\/gitlab\/CustomerRelations::Organization\/\d+$/);
    acme = idOf(payload.organization.id);
    globex = idOf((await ok(CREATE_ORG, { input: { groupId: gid('Group', group.id), name: 'Globex' } })).customerRelationsOrganizationCreate.organization.id);
  });

  it('refuses a name taken in any case, and subgroups, in errors as GitLab words them', async () => {
    const dup = await ok(CREATE_ORG, { input: { groupId: gid('Group', group.id), name: 'ACME' } });
    expect(dup.customerRelationsOrganizationCreate).toEqual({ clientMutationId: null, errors: ['Name has already been taken'], organization: null });
    const sub = await ok(CREATE_ORG, { input: { groupId: gid('Group', subgroup.id), name: 'Initech' } });
    expect(sub.customerRelationsOrganizationCreate.errors).toEqual(['organizations can only be added to root groups']);
    const blank = await ok(CREATE_ORG, { input: { groupId: gid('Group', group.id), name: ' ', description: 'x'.repeat(1025) } });
    expect(blank.customerRelationsOrganizationCreate.errors).toEqual(["Name can't be blank", 'Description is too long (maximum is 1024 characters)']);
  });

  it('updates one, active false making it inactive', async () => {
    const data = await ok(
      `mutation($id: CustomerRelationsOrganizationID!) { customerRelationsOrganizationUpdate(input: { id: $id, active: false, defaultRate: 10 }) { errors organization { name active defaultRate } } }`,
      { id: gid('CustomerRelations::Organization', globex) },
    );
    expect(data.customerRelationsOrganizationUpdate).toEqual({ errors: [], organization: { name: 'Globex', active: false, defaultRate: 10 } });
  });

  it('lists, filters, sorts and counts them from the root group and its subgroups', async () => {
    const q = `query($path: ID!) { group(fullPath: $path) {
      organizations { nodes { name } }
      desc: organizations(sort: NAME_DESC) { nodes { name } }
      active: organizations(state: active) { nodes { name } }
      found: organizations(search: "anv") { nodes { name } }
      byId: organizations(ids: ["${gid('CustomerRelations::Organization', globex)}"]) { nodes { name } }
      organizationStateCounts { all active inactive }
    } }`;
    const expected = {
      organizations: { nodes: [{ name: 'Acme' }, { name: 'Globex' }] },
      desc: { nodes: [{ name: 'Globex' }, { name: 'Acme' }] },
      active: { nodes: [{ name: 'Acme' }] },
      found: { nodes: [{ name: 'Acme' }] },
      byId: { nodes: [{ name: 'Globex' }] },
      organizationStateCounts: { all: 2, active: 1, inactive: 1 },
    };
    expect((await ok(q, { path: group.full_path })).group).toEqual(expected);
    expect((await ok(q, { path: subgroup.full_path }, reporter.token)).group).toEqual(expected);
  });
});

describe('contacts', () => {
  it('creates them with an organization of the group', async () => {
    const data = await ok(CREATE_CONTACT, {
      input: { groupId: gid('Group', group.id), organizationId: gid('CustomerRelations::Organization', acme), firstName: ' Wile ', lastName: 'Coyote', email: 'Wile@Acme.test', phone: '555' },
    });
    expect(data.customerRelationsContactCreate).toMatchObject({
      errors: [],
      contact: { firstName: 'Wile', lastName: 'Coyote', email: 'Wile@Acme.test', phone: '555', description: null, active: true, organization: { name: 'Acme' } },
    });
    contacts.wile = idOf(data.customerRelationsContactCreate.contact.id);
    for (const [key, firstName, lastName, email] of [
      ['road', 'Road', 'Runner', 'road@acme.test'],
      ['bugs', 'Bugs', 'Bunny', 'bugs@acme.test'],
      ['daffy', 'Daffy', 'Duck', null],
    ] as const) {
      const made = await ok(CREATE_CONTACT, { input: { groupId: gid('Group', group.id), firstName, lastName, email } });
      contacts[key] = idOf(made.customerRelationsContactCreate.contact.id);
    }
  });

  it('refuses an e-mail taken in any case, a bad one, blank names and a foreign organization', async () => {
    const taken = await ok(CREATE_CONTACT, { input: { groupId: gid('Group', group.id), firstName: 'W', lastName: 'C', email: 'wile@ACME.test' } });
    expect(taken.customerRelationsContactCreate).toEqual({ errors: ['Email has already been taken'], contact: null });
    const bad = await ok(CREATE_CONTACT, { input: { groupId: gid('Group', group.id), firstName: '', lastName: 'C', email: 'nope' } });
    expect(bad.customerRelationsContactCreate.errors).toEqual(["First name can't be blank", 'Email is invalid']);
    const foreign = await ok(CREATE_CONTACT, { input: { groupId: gid('Group', other.id), firstName: 'A', lastName: 'B', organizationId: gid('CustomerRelations::Organization', acme) } });
    expect(foreign.customerRelationsContactCreate.errors).toEqual(['The specified organization was not found or does not belong to this group']);
    const sub = await ok(CREATE_CONTACT, { input: { groupId: gid('Group', subgroup.id), firstName: 'A', lastName: 'B' } });
    expect(sub.customerRelationsContactCreate.errors).toEqual(['contacts can only be added to root groups']);
  });

  it('updates one and deactivates it', async () => {
    const data = await ok(
      `mutation($id: CustomerRelationsContactID!) { customerRelationsContactUpdate(input: { id: $id, active: false, description: "Beep", organizationId: null }) { errors contact { firstName active description organization { name } } } }`,
      { id: gid('CustomerRelations::Contact', contacts.road) },
    );
    expect(data.customerRelationsContactUpdate).toEqual({ errors: [], contact: { firstName: 'Road', active: false, description: 'Beep', organization: null } });
    const dup = await ok(`mutation($id: CustomerRelationsContactID!) { customerRelationsContactUpdate(input: { id: $id, email: "ROAD@acme.test" }) { errors contact { email } } }`, {
      id: gid('CustomerRelations::Contact', contacts.wile),
    });
    expect(dup.customerRelationsContactUpdate).toEqual({ errors: ['Email has already been taken'], contact: null });
  });

  it('lists them by last name by default, with GitLab’s filters, sorts and counts', async () => {
    const data = await ok(
      `query($path: ID!) { group(fullPath: $path) {
        contacts { nodes { lastName } pageInfo { hasNextPage } }
        page: contacts(first: 2, sort: FIRST_NAME_DESC) { nodes { firstName } pageInfo { hasNextPage endCursor } }
        byEmail: contacts(sort: EMAIL_ASC) { nodes { firstName } }
        byOrganization: contacts(sort: ORGANIZATION_ASC) { nodes { firstName } }
        inactive: contacts(state: inactive) { nodes { firstName } }
        found: contacts(search: "beep") { nodes { firstName } }
        contactStateCounts { all active inactive }
        searched: contactStateCounts(search: "acme") { all active inactive }
      } }`,
      { path: subgroup.full_path },
    );
    expect(data.group.contacts).toEqual({ nodes: [{ lastName: 'Bunny' }, { lastName: 'Coyote' }, { lastName: 'Duck' }, { lastName: 'Runner' }], pageInfo: { hasNextPage: false } });
    expect(data.group.page.nodes).toEqual([{ firstName: 'Wile' }, { firstName: 'Road' }]);
    expect(data.group.page.pageInfo.hasNextPage).toBe(true);
    // NULLS LAST both ways, as GitLab's order_scope_asc gives them.
    // (how upper and lower case interleave is the database's collation.)
    expect(data.group.byEmail.nodes.slice(0, 3).map((n: { firstName: string }) => n.firstName).sort()).toEqual(['Bugs', 'Road', 'Wile']);
    expect(data.group.byEmail.nodes.at(-1)).toEqual({ firstName: 'Daffy' });
    expect(data.group.byOrganization.nodes[0]).toEqual({ firstName: 'Wile' });
    expect(data.group.inactive.nodes).toEqual([{ firstName: 'Road' }]);
    expect(data.group.found.nodes).toEqual([{ firstName: 'Road' }]);
    expect(data.group.contactStateCounts).toEqual({ all: 4, active: 3, inactive: 1 });
    expect(data.group.searched).toEqual({ all: 3, active: 2, inactive: 1 });
  });
});

describe('who may', () => {
  it('lets Reporters read but not manage: the mutations answer ResourceNotAvailable', async () => {
    const body = await gql(CREATE_ORG, { input: { groupId: gid('Group', group.id), name: 'Reporter Inc' } }, reporter.token);
    expect(body.errors?.[0].message).toBe(RNA);
    expect(body.data.customerRelationsOrganizationCreate).toBeNull();
    const update = await gql(
      `mutation($id: CustomerRelationsContactID!) { customerRelationsContactUpdate(input: { id: $id, firstName: "X" }) { contact { id } } }`,
      { id: gid('CustomerRelations::Contact', contacts.wile) },
      reporter.token,
    );
    expect(update.errors?.[0].message).toBe(RNA);
    const missing = await gql(`mutation { customerRelationsContactUpdate(input: { id: "gid://gitlab/CustomerRelations::Contact/999999", firstName: "X" }) { contact { id } } }`);
    expect(missing.errors?.[0].message).toBe(RNA);
  });

  it('shows Guests and project-only members nothing, and strangers no group', async () => {
    const q = `query($path: ID!) { group(fullPath: $path) { contacts { nodes { id } } contactStateCounts { all } organizations { nodes { id } } organizationStateCounts { all } } }`;
    expect((await ok(q, { path: group.full_path }, guest.token)).group).toEqual({
      contacts: { nodes: [] },
      contactStateCounts: null,
      organizations: { nodes: [] },
      organizationStateCounts: null,
    });
    expect((await ok(q, { path: subgroup.full_path }, projectReporter.token)).group.contacts).toEqual({ nodes: [] });
    expect((await ok(q, { path: group.full_path }, stranger.token)).group).toBeNull();
  });

  it('refuses a contact in a group the caller does not see, as ResourceNotAvailable', async () => {
    const body = await gql(CREATE_CONTACT, { input: { groupId: gid('Group', group.id), firstName: 'A', lastName: 'B' } }, stranger.token);
    expect(body.errors?.[0].message).toBe(RNA);
  });
});

describe('issue contacts', () => {
  it('replaces, appends and removes, each change leaving GitLab’s system note', async () => {
    const ids = (...keys: string[]) => keys.map((k) => gid('CustomerRelations::Contact', contacts[k]));
    const set = async (keys: string[], mode?: string) => (await ok(SET, { path: project.path_with_namespace, iid: String(issueIid), ids: ids(...keys), mode })).issueSetCrmContacts;
    expect(await set(['wile', 'road'])).toEqual({ errors: [], issue: { iid: String(issueIid), customerRelationsContacts: { nodes: [{ firstName: 'Wile' }, { firstName: 'Road' }] } } });
    expect((await set(['bugs', 'wile'], 'APPEND')).issue.customerRelationsContacts.nodes).toEqual([{ firstName: 'Wile' }, { firstName: 'Road' }, { firstName: 'Bugs' }]);
    expect((await set(['road', 'daffy'], 'REMOVE')).issue.customerRelationsContacts.nodes).toEqual([{ firstName: 'Wile' }, { firstName: 'Bugs' }]);
    expect((await set(['daffy', 'wile'])).issue.customerRelationsContacts.nodes).toEqual([{ firstName: 'Wile' }, { firstName: 'Daffy' }]);

    const api = new Gitlab({ host: t.url, token: owner.token });
    const notes = (await api.IssueNotes.all(project.id, issueIid, { sort: 'asc', orderBy: 'created_at' })) as unknown as { body: string; system: boolean }[];
    expect(notes.filter((n) => n.system).map((n) => n.body)).toEqual(['added 2 contacts', 'added 1 contact', 'removed 1 contact', 'added 1 contact and removed 1 contact']);
  });

  it('lets Reporters of the root group read an issue’s contacts, and nobody else', async () => {
    const q = `query($path: ID!, $iid: String!) { project(fullPath: $path) { issue(iid: $iid) { customerRelationsContacts { nodes { firstName email } } } } }`;
    const vars = { path: project.path_with_namespace, iid: String(issueIid) };
    expect((await ok(q, vars, reporter.token)).project.issue.customerRelationsContacts.nodes).toEqual([
      { firstName: 'Wile', email: 'Wile@Acme.test' },
      { firstName: 'Daffy', email: null },
    ]);
    expect((await ok(q, vars, projectReporter.token)).project.issue.customerRelationsContacts.nodes).toEqual([]);
  });

  it('filters issue lists by contact and by organization', async () => {
    const data = await ok(
      `query($project: ID!, $group: ID!, $wile: String, $road: String, $acme: String, $globex: String) {
        project(fullPath: $project) { wile: issues(crmContactId: $wile) { nodes { iid } } road: issues(crmContactId: $road) { nodes { iid } } junk: issues(crmContactId: "x") { nodes { iid } } }
        group(fullPath: $group) { acme: issues(crmOrganizationId: $acme) { nodes { iid } } globex: issues(crmOrganizationId: $globex) { nodes { iid } } }
        issues(crmContactId: $wile) { nodes { iid } }
      }`,
      { project: project.path_with_namespace, group: group.full_path, wile: String(contacts.wile), road: String(contacts.road), acme: String(acme), globex: String(globex) },
    );
    const one = { nodes: [{ iid: String(issueIid) }] };
    expect(data).toEqual({ project: { wile: one, road: { nodes: [] }, junk: { nodes: [] } }, group: { acme: one, globex: { nodes: [] } }, issues: one });
  });

  it('refuses more than six at once, contacts of another group and empty appends, in GitLab’s words', async () => {
    const many = Array.from({ length: 7 }, (_, i) => gid('CustomerRelations::Contact', 900000 + i));
    const tooMany = await ok(SET, { path: project.path_with_namespace, iid: String(issueIid), ids: many, mode: 'APPEND' });
    expect(tooMany.issueSetCrmContacts).toEqual({ errors: ['You can only add up to 6 contacts at one time'], issue: null });

    const outsider = await ok(CREATE_CONTACT, { input: { groupId: gid('Group', other.id), firstName: 'Out', lastName: 'Sider' } });
    const outsiderId = idOf(outsider.customerRelationsContactCreate.contact.id);
    const foreign = await ok(SET, { path: project.path_with_namespace, iid: String(issueIid), ids: [gid('CustomerRelations::Contact', outsiderId)], mode: 'APPEND' });
    expect(foreign.issueSetCrmContacts.errors).toEqual([`Issue customer relations contacts ${outsiderId}: ${RNA}`]);

    const empty = await ok(SET, { path: project.path_with_namespace, iid: String(issueIid), ids: [], mode: 'APPEND' });
    expect(empty.issueSetCrmContacts.errors).toEqual(['You cannot combine replace_ids with add_ids or remove_ids']);
  });

  it('refuses those who may not read the root group’s contacts, as ResourceNotAvailable', async () => {
    const body = await gql(SET, { path: project.path_with_namespace, iid: String(issueIid), ids: [] }, projectReporter.token);
    expect(body.errors?.[0].message).toBe(RNA);
    const personal = await createProject(t, owner.token);
    const own = await apiOk(t, owner.token, 'POST', `/projects/${personal.id}/issues`, { title: 'Mine' });
    const mine = await gql(SET, { path: personal.path_with_namespace, iid: String(own.iid), ids: [] });
    expect(mine.errors?.[0].message).toBe(RNA);
  });
});

describe('issueCrmContactsUpdated', () => {
  const client = () =>
    createClient({ url: `${t.url.replace('http', 'ws')}/api/graphql`, webSocketImpl: WebSocket, connectionParams: { 'PRIVATE-TOKEN': reporter.token }, retryAttempts: 0 });
  let ws: ReturnType<typeof client> | undefined;
  afterAll(async () => ws?.dispose());

  it('tells readers of the issue each time its contacts change', async () => {
    const issue = await apiOk(t, owner.token, 'POST', `/projects/${project.id}/issues`, { title: 'Watched' });
    ws = client();
    const heard: string[][] = [];
    let wake = () => {};
    ws.subscribe(
      {
        query: `subscription($id: IssuableID!) { issueCrmContactsUpdated(issuableId: $id) { __typename ... on Issue { iid customerRelationsContacts { nodes { firstName } } } } }`,
        variables: { id: `gid://gitlab/Issue/${issue.id}` },
      },
      {
        next: (msg: any) => {
          const value = msg.data?.issueCrmContactsUpdated;
          if (value) heard.push(value.customerRelationsContacts.nodes.map((n: { firstName: string }) => n.firstName));
          wake();
        },
        error: () => wake(),
        complete: () => wake(),
      },
    );
    // graphql-ws does not acknowledge a subscription: contacts change, one way then the other, until one is heard.
    for (let n = 0; n < 40 && !heard.length; n++) {
      const key = n % 2 ? 'bugs' : 'wile';
      const waiting = new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 250);
      });
      await ok(SET, { path: project.path_with_namespace, iid: String(issue.iid), ids: [gid('CustomerRelations::Contact', contacts[key])] });
      await waiting;
    }
    expect([['Wile'], ['Bugs']]).toContainEqual(heard[0]);
  });
});

describe('transfers', () => {
  const orgsAndContacts = `query($path: ID!) { group(fullPath: $path) { organizations { nodes { name } } contacts { nodes { firstName email organization { name } } } } }`;

  it('hands a root group’s records to its new root group, merged by name and e-mail, its issues keeping their contacts', async () => {
    const target = await createGroup(t, owner.token);
    const moving = await createGroup(t, owner.token);
    const movingProject = await createProject(t, owner.token, { namespaceId: moving.id });
    const issue = await apiOk(t, owner.token, 'POST', `/projects/${movingProject.id}/issues`, { title: 'Moving' });
    const org = async (groupId: number, name: string) =>
      idOf((await ok(CREATE_ORG, { input: { groupId: gid('Group', groupId), name } })).customerRelationsOrganizationCreate.organization.id);
    const contact = async (groupId: number, firstName: string, email: string, organization?: number) =>
      idOf(
        (
          await ok(CREATE_CONTACT, {
            input: { groupId: gid('Group', groupId), firstName, lastName: 'X', email, organizationId: organization && gid('CustomerRelations::Organization', organization) },
          })
        ).customerRelationsContactCreate.contact.id,
      );
    await org(target.id, 'Shared');
    await contact(target.id, 'Kept', 'same@x.test');
    const movingShared = await org(moving.id, 'SHARED');
    const movingOwn = await org(moving.id, 'Own');
    const dupe = await contact(moving.id, 'Dupe', 'SAME@x.test', movingShared);
    const own = await contact(moving.id, 'Own', 'own@x.test', movingOwn);
    await ok(SET, { path: movingProject.path_with_namespace, iid: String(issue.iid), ids: [gid('CustomerRelations::Contact', dupe), gid('CustomerRelations::Contact', own)] });

    await apiOk(t, owner.token, 'POST', `/groups/${moving.id}/transfer`, { group_id: target.id });

    const data = await ok(orgsAndContacts, { path: target.full_path });
    expect(data.group.organizations.nodes).toEqual([{ name: 'Own' }, { name: 'Shared' }]);
    expect(data.group.contacts.nodes.map((c: { firstName: string }) => c.firstName).sort()).toEqual(['Kept', 'Own']);
    const moved = await ok(`query($path: ID!, $iid: String!) { project(fullPath: $path) { issue(iid: $iid) { customerRelationsContacts { nodes { firstName } } } } }`, {
      path: `${target.full_path}/${moving.path}/${movingProject.path}`,
      iid: String(issue.iid),
    });
    expect(moved.project.issue.customerRelationsContacts.nodes.map((c: { firstName: string }) => c.firstName).sort()).toEqual(['Kept', 'Own']);
  });

  it('drops the contacts of issues whose project moves under another root group', async () => {
    const elsewhere = await createGroup(t, owner.token);
    const leaving = await createProject(t, owner.token, { namespaceId: group.id });
    const issue = await apiOk(t, owner.token, 'POST', `/projects/${leaving.id}/issues`, { title: 'Leaving' });
    await ok(SET, { path: leaving.path_with_namespace, iid: String(issue.iid), ids: [gid('CustomerRelations::Contact', contacts.wile)] });
    const moved = await apiOk(t, owner.token, 'PUT', `/projects/${leaving.id}/transfer`, { namespace: elsewhere.id });
    await ok(SET, { path: moved.path_with_namespace, iid: String(issue.iid), ids: [] });
    const notes = await apiOk(t, owner.token, 'GET', `/projects/${leaving.id}/issues/${issue.iid}/notes?sort=asc`);
    // Nothing was left to remove: the move took the contact away, so the empty replacement changed nothing.
    expect(notes.filter((n: { system: boolean }) => n.system).map((n: { body: string }) => n.body)).toEqual(['added 1 contact']);
    const back = await apiOk(t, owner.token, 'PUT', `/projects/${leaving.id}/transfer`, { namespace: group.id });
    const read = await ok(`query($path: ID!, $iid: String!) { project(fullPath: $path) { issue(iid: $iid) { customerRelationsContacts { nodes { firstName } } } } }`, {
      path: back.path_with_namespace,
      iid: String(issue.iid),
    });
    expect(read.project.issue.customerRelationsContacts.nodes).toEqual([]);
  });
});

describe('query budget', () => {
  it('reads a page of issues with their contacts and organizations in a fixed number of statements', async () => {
    for (let i = 0; i < 3; i++) {
      const issue = await apiOk(t, owner.token, 'POST', `/projects/${project.id}/issues`, { title: `Budget ${i}` });
      await ok(SET, { path: project.path_with_namespace, iid: String(issue.iid), ids: [gid('CustomerRelations::Contact', contacts.wile), gid('CustomerRelations::Contact', contacts.bugs)] });
    }
    const read = async (first: number) => {
      statements.length = 0;
      counting = true;
      try {
        return await ok(
          `query($path: ID!, $group: ID!, $first: Int!) {
            project(fullPath: $path) { issues(first: $first) { nodes { customerRelationsContacts { nodes { firstName organization { name } } } } } }
            group(fullPath: $group) { contacts(first: $first) { nodes { firstName organization { name } } } }
          }`,
          { path: project.path_with_namespace, group: group.full_path, first },
        );
      } finally {
        counting = false;
      }
    };
    const one = await read(1);
    const few = statements.length;
    const many = await read(4);
    expect(statements.length).toBe(few);
    expect(one.project.issues.nodes).toHaveLength(1);
    expect(many.project.issues.nodes).toHaveLength(4);
    expect(many.group.contacts.nodes).toHaveLength(4);
    expect(many.project.issues.nodes[0].customerRelationsContacts.nodes).toEqual([
      { firstName: 'Wile', organization: { name: 'Acme' } },
      { firstName: 'Bugs', organization: null },
    ]);
  });
});
