/**
 * epicTreeReorder (EE's Mutations::EpicTree::Reorder, Epics::TreeReorderService): epics and epic-issues share one
 * order under their parent epic; a node moves next to a sibling or first, or under a new parent; GitLab's errors.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

let owner: TestUser;
let guest: TestUser;
let outsider: TestUser;
let group: { id: number; full_path: string };
let project: { id: number };
type Epic = { id: number; iid: number };
let root: Epic;
let other: Epic;
let childOne: Epic;
let childTwo: Epic;
let otherChild: Epic;
/** Epic-issue ids (REST's `epic_issue_id`) of two issues in `root`, and of one in `other`. */
let first: number;
let second: number;
let inOther: number;

const epicGid = (e: Epic) => `gid://gitlab/Epic/${e.id}`;
const linkGid = (id: number) => `gid://gitlab/EpicIssue/${id}`;

async function epic(title: string, parent?: Epic): Promise<Epic> {
  const res = await t.api('POST', `/groups/${group.id}/epics`, { token: owner.token, body: { title, ...(parent ? { parent_id: parent.id } : {}) } });
  expect(res.status).toBe(201);
  return res.body;
}

async function issueIn(e: Epic, title: string): Promise<number> {
  const issue = (await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title } })).body;
  const res = await t.api('POST', `/groups/${group.id}/epics/${e.iid}/issues/${issue.id}`, { token: owner.token });
  expect(res.status).toBe(201);
  return res.body.id;
}

function reorder(moved: Record<string, unknown>, token = owner.token, base: Epic = root) {
  return t.graphql(
    `mutation($input: EpicTreeReorderInput!) { epicTreeReorder(input: $input) { errors clientMutationId } }`,
    { input: { baseEpicId: epicGid(base), moved, clientMutationId: 'r' } },
    token,
  );
}

/** The tree under an epic: its children and its issues, each `Epic:<id>` or `EpicIssue:<id>`, by position. */
async function tree(e: Epic): Promise<string[]> {
  const res = await t.graphql(
    `query($g: ID!, $iid: ID!) { group(fullPath: $g) { epic(iid: $iid) {
      children { nodes { id relativePosition } } issues { nodes { epicIssueId relativePosition } } } } }`,
    { g: group.full_path, iid: String(e.iid) },
    owner.token,
  );
  expect(res.body.errors).toBeUndefined();
  const { children, issues } = res.body.data.group.epic;
  const nodes = [
    ...children.nodes.map((c: { id: string; relativePosition: number | null }) => ({ name: `Epic:${c.id.split('/').pop()}`, at: c.relativePosition })),
    ...issues.nodes.map((i: { epicIssueId: string; relativePosition: number | null }) => ({ name: `EpicIssue:${i.epicIssueId.split('/').pop()}`, at: i.relativePosition })),
  ];
  expect(nodes.every((n) => n.at !== null)).toBe(true);
  return nodes.sort((a, b) => a.at - b.at).map((n) => n.name);
}

beforeAll(async () => {
  [owner, guest, outsider] = await Promise.all([createUser(t), createUser(t), createUser(t)]);
  group = await createGroup(t, owner.token);
  project = await createProject(t, owner.token, { namespaceId: group.id });
  await addMember(t, owner.token, 'groups', group.id, guest.id, 10);
  root = await epic('root');
  other = await epic('other');
  childOne = await epic('child one', root);
  childTwo = await epic('child two', root);
  otherChild = await epic('other child', other);
  first = await issueIn(root, 'first');
  second = await issueIn(root, 'second');
  inOther = await issueIn(other, 'in other');
});

describe('epicTreeReorder', () => {
  it('places epics and epic-issues in one order under their parent', async () => {
    // `after`: the adjacent node comes after the moved one; `before`: before it.
    const res = await reorder({ id: epicGid(childOne), adjacentReferenceId: linkGid(second), relativePosition: 'after' });
    expect(res.body).toEqual({ data: { epicTreeReorder: { errors: [], clientMutationId: 'r' } } });
    await reorder({ id: epicGid(childTwo), adjacentReferenceId: linkGid(first), relativePosition: 'before' });
    expect(await tree(root)).toEqual([`Epic:${childOne.id}`, `EpicIssue:${second}`, `EpicIssue:${first}`, `Epic:${childTwo.id}`]);
    await reorder({ id: linkGid(first), adjacentReferenceId: epicGid(childOne), relativePosition: 'before' });
    expect(await tree(root)).toEqual([`Epic:${childOne.id}`, `EpicIssue:${first}`, `EpicIssue:${second}`, `Epic:${childTwo.id}`]);
    // Without an adjacent node: first.
    await reorder({ id: epicGid(childTwo) });
    expect(await tree(root)).toEqual([`Epic:${childTwo.id}`, `Epic:${childOne.id}`, `EpicIssue:${first}`, `EpicIssue:${second}`]);
    // The Epic Issues API lists the epic's issues in that order.
    const listed = await t.api('GET', `/groups/${group.id}/epics/${root.iid}/issues`, { token: owner.token });
    expect(listed.body.map((i: { epic_issue_id: number }) => i.epic_issue_id)).toEqual([first, second]);
  });

  it('moves a node under a new parent, next to its new sibling', async () => {
    const res = await reorder({ id: linkGid(second), adjacentReferenceId: linkGid(inOther), relativePosition: 'before', newParentId: epicGid(other) });
    expect(res.body.data.epicTreeReorder.errors).toEqual([]);
    // otherChild had no position yet, so the children were spread out again in their order.
    expect(await tree(other)).toEqual([`EpicIssue:${inOther}`, `EpicIssue:${second}`, `Epic:${otherChild.id}`]);
    const inOtherEpic = await t.api('GET', `/groups/${group.id}/epics/${other.iid}/issues`, { token: owner.token });
    expect(inOtherEpic.body.map((i: { epic_issue_id: number }) => i.epic_issue_id)).toEqual([inOther, second]);
    const moved = await reorder({ id: epicGid(otherChild), adjacentReferenceId: epicGid(childOne), relativePosition: 'before', newParentId: epicGid(root) });
    expect(moved.body.data.epicTreeReorder.errors).toEqual([]);
    const parent = await t.api('GET', `/groups/${group.id}/epics/${otherChild.iid}`, { token: owner.token });
    expect(parent.body.parent_id).toBe(root.id);
    expect(await tree(root)).toEqual([`Epic:${childTwo.id}`, `Epic:${childOne.id}`, `Epic:${otherChild.id}`, `EpicIssue:${first}`]);
    expect(await tree(other)).toEqual([`EpicIssue:${inOther}`, `EpicIssue:${second}`]);
  });

  it('answers GitLab’s errors', async () => {
    const errors = async (moved: Record<string, unknown>, token = owner.token) => (await reorder(moved, token)).body.data.epicTreeReorder.errors;
    expect(await errors({ id: epicGid(childOne), adjacentReferenceId: linkGid(inOther), relativePosition: 'after' })).toEqual([
      "The sibling object's parent must match the current parent epic.",
    ]);
    expect(await errors({ id: epicGid(childOne), adjacentReferenceId: linkGid(first), relativePosition: 'after', newParentId: epicGid(other) })).toEqual([
      "The sibling object's parent must match the new parent epic.",
    ]);
    expect(await errors({ id: epicGid(childOne), adjacentReferenceId: linkGid(first) })).toEqual(['Relative position is not valid.']);
    expect(await errors({ id: linkGid(999999) })).toEqual(['Only epics and epic_issues are supported.']);
    // Guests relate issues to epics, not epics to epics.
    expect(await errors({ id: epicGid(childOne) }, guest.token)).toEqual(["You don't have permissions to move the objects."]);
    expect(await errors({ id: linkGid(first) }, guest.token)).toEqual([]);
    // A top-level epic has no parent to take it from; an epic may not go under its own child.
    expect(await errors({ id: epicGid(root), newParentId: epicGid(childOne) })).toEqual(["You don't have permissions to move the objects."]);
    const grandchild = await epic('grandchild', childOne);
    expect(await errors({ id: epicGid(childOne), newParentId: epicGid(grandchild) })).toEqual(['No matching epic found. Make sure that you are adding a valid epic URL.']);

    const notTree = await reorder({ id: 'gid://gitlab/Issue/1' });
    expect(notTree.body.errors![0].message).toContain('"gid://gitlab/Issue/1" does not represent an instance of EpicTreeSorting');
    const hidden = await reorder({ id: epicGid(childOne) }, outsider.token);
    expect(hidden.body.data.epicTreeReorder).toBeNull();
    expect(hidden.body.errors![0].message).toBe("The resource that you are attempting to access does not exist or you don't have permission to perform this action");
  });

  it('spreads the children out again when their positions leave no room', async () => {
    const crowded = await epic('crowded');
    const links = [await issueIn(crowded, 'a'), await issueIn(crowded, 'b'), await issueIn(crowded, 'c')];
    // Newest first: c, b, a. Putting a, then b, then a … right after c halves the gap each time until there is none.
    const [a, b, c] = links;
    for (let i = 0; i < 12; i++) {
      const res = await reorder({ id: linkGid(i % 2 === 0 ? a : b), adjacentReferenceId: linkGid(c), relativePosition: 'before' }, owner.token, crowded);
      expect(res.body.data.epicTreeReorder.errors).toEqual([]);
      expect(await tree(crowded)).toEqual(i % 2 === 0 ? [`EpicIssue:${c}`, `EpicIssue:${a}`, `EpicIssue:${b}`] : [`EpicIssue:${c}`, `EpicIssue:${b}`, `EpicIssue:${a}`]);
    }
  });
});
