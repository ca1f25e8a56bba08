/** Labels and milestones over GitLab's GraphQL: labelCreate's relay shape and errors, Project/Group labels and milestones, global IDs. */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

let owner: TestUser;
let guest: TestUser;
let stranger: TestUser;
let group: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string };

const CREATE = `mutation($input: LabelCreateInput!) { labelCreate(input: $input) { clientMutationId errors label { id title color textColor description descriptionHtml } } }`;

beforeAll(async () => {
  [owner, guest, stranger] = await Promise.all([1, 2, 3].map(() => createUser(t)));
  group = await createGroup(t, owner.token);
  project = await createProject(t, owner.token, { namespaceId: group.id });
  await addMember(t, owner.token, 'projects', project.id, guest.id, 10);
});

describe('labelCreate', () => {
  it('creates a project label with GitLab’s default colour and answers its global ID', async () => {
    const res = await t.graphql(CREATE, { input: { projectPath: project.path_with_namespace, title: 'gql', clientMutationId: 'c1' } }, owner.token);
    expect(res.body.errors).toBeUndefined();
    const payload = res.body.data.labelCreate;
    expect(payload).toMatchObject({ clientMutationId: 'c1', errors: [], label: { title: 'gql', color: '#6699cc', textColor: '#FFFFFF', description: null, descriptionHtml: null } });
    expect(payload.label.id).toMatch(/^gid:\/\/gitlab\/ProjectLabel\/\d+$/);
  });

  it('reports validation failures in the payload’s errors, in Rails’ words', async () => {
    const dup = await t.graphql(CREATE, { input: { projectPath: project.path_with_namespace, title: 'gql' } }, owner.token);
    expect(dup.body.data.labelCreate).toEqual({ clientMutationId: null, errors: ['Title has already been taken'], label: null });
    const color = await t.graphql(CREATE, { input: { groupPath: group.full_path, title: 'g', color: 'no' } }, owner.token);
    expect(color.body.data.labelCreate.errors).toEqual(['Color must be a valid color code']);
  });

  it('refuses a guest and hides a private project from other users', async () => {
    const guestRes = await t.graphql(CREATE, { input: { projectPath: project.path_with_namespace, title: 'nope' } }, guest.token);
    expect(guestRes.body.data.labelCreate).toBeNull();
    expect(guestRes.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const hidden = await t.graphql(CREATE, { input: { projectPath: project.path_with_namespace, title: 'nope' } }, stranger.token);
    expect(hidden.body.errors?.[0].extensions?.code).toBe('NOT_FOUND');
  });
});

describe('reads', () => {
  it('lists Project.labels with the group’s, Project.label(title:) and Group.labels', async () => {
    await t.graphql(CREATE, { input: { groupPath: group.full_path, title: 'from-group', color: '#ffffff' } }, owner.token);
    const res = await t.graphql(
      `query($p: ID!, $g: ID!) {
        project(fullPath: $p) { labels { count nodes { title } } label(title: "from-group") { id textColor } }
        group(fullPath: $g) { labels { count nodes { title } } }
      }`,
      { p: project.path_with_namespace, g: group.full_path },
      guest.token,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.project.labels.nodes.map((n: { title: string }) => n.title)).toEqual(['from-group', 'gql']);
    expect(res.body.data.project.label).toMatchObject({ id: expect.stringMatching(/^gid:\/\/gitlab\/GroupLabel\//), textColor: '#333333' });
    // A member of a project in the group reads the group (GitLab's `has_projects`), and so its labels.
    expect(res.body.data.group.labels.nodes).toEqual([{ title: 'from-group' }]);
  });

  it('lists Project.milestones and Group.milestones and finds one by MilestoneID', async () => {
    const made = await t.api('POST', `/projects/${project.id}/milestones`, { token: owner.token, body: { title: 'm1', due_date: '2031-05-06' } });
    await t.api('POST', `/groups/${group.id}/milestones`, { token: owner.token, body: { title: 'gm1' } });
    const res = await t.graphql(
      `query($p: ID!, $g: ID!, $id: MilestoneID!) {
        project(fullPath: $p) {
          milestones(includeAncestors: true) { count nodes { title projectMilestone groupMilestone state } }
          milestone(id: $id) { id iid title dueDate expired webPath }
        }
        group(fullPath: $g) { milestones { nodes { title } } }
      }`,
      { p: project.path_with_namespace, g: group.full_path, id: `gid://gitlab/Milestone/${made.body.id}` },
      owner.token,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.project.milestones.nodes).toEqual([
      { title: 'm1', projectMilestone: true, groupMilestone: false, state: 'active' },
      { title: 'gm1', projectMilestone: false, groupMilestone: true, state: 'active' },
    ]);
    expect(res.body.data.project.milestone).toEqual({
      id: `gid://gitlab/Milestone/${made.body.id}`,
      iid: '1',
      title: 'm1',
      dueDate: '2031-05-06T00:00:00.000Z',
      expired: false,
      webPath: `/${project.path_with_namespace}/-/milestones/1`,
    });
    expect(res.body.data.group.milestones.nodes).toEqual([{ title: 'gm1' }]);
  });
});
