import { GraphQLError, Kind as AstKind, print, stripIgnoredCharacters, type DefinitionNode, type ExecutionResult, type FieldNode, type OperationDefinitionNode } from 'graphql';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import { buildSchema } from '../../src/graphql/schema.js';
import { routeValue, type PreparedRoute } from '../../src/rest/adapter.js';
import { restError } from '../../src/errors.js';
import { variablesFromParams } from '../../src/rest/params.js';
import { connectionArgs, readOffsetPage } from '../../src/rest/pagination.js';
import { restRoutes } from '../../src/rest/routes.js';
import { suiteServer, type ApiResponse, type TestServer } from '../support/server.js';
import { createGroup, createProject, createUser, unique, type TestUser } from '../support/factories.js';
import { freshKey } from '../users/ssh-keys.js';

// Every REST route's operation, replayed with the same token over /api/graphql and over graphql-ws: for every
// kind of credential (each scope, a token of another user, expired, revoked, anonymous), REST's answer is what
// the adapter makes of the GraphQL result, on both transports. Scopes, abilities and authentication live below
// the resolvers' entry, so no surface can decide differently. The routes are dealt out to SHARDS test files
// (scope-matrix-N.test.ts), each with a server of its own, so that they run side by side.
export const SHARDS = 3;
let t: TestServer;
// A route that requires a file (an `Upload!`, from a multipart body) cannot be replayed over GraphQL transports, which
// send no files: test/rest/multipart.test.ts checks its scopes over REST.
const routes = restRoutes(buildSchema()).filter((route) => !route.compiled.variables.some((v) => String(v.type) === 'Upload!'));

type Kind = 'api' | 'read_api' | 'read_user' | 'read_repository' | 'sudo' | 'admin' | 'expired' | 'revoked' | 'anonymous';
const KINDS: Kind[] = ['api', 'read_api', 'read_user', 'read_repository', 'sudo', 'admin', 'expired', 'revoked', 'anonymous'];

interface Fixtures {
  owner: TestUser;
  group: { id: number };
  project: { id: number };
  tokenId: number;
  /** A pipeline of the project (with its jobs) that reads share. */
  pipeline: { id: number; jobId: number };
  /** A project runner of the project that reads share. */
  runnerId: number;
  /** A generic package (with one file) the reads share, once one asked for it. */
  package?: { packageId: number; fileId: number };
  /** An environment and a deployment of the project that reads share, once one asked for them. */
  environmentId?: number;
  deploymentId?: number;
  /** A pipeline schedule of the project that reads share, once one asked for it. */
  schedule?: number;
  /** Webhooks the reads share, by the path that lists them. */
  hooks?: Record<string, number>;
  /** A project access token of the project that reads share, once one asked for it. */
  projectAccessToken?: number;
  /** An alert of the project that reads and metric image writes share, once one asked for it. */
  alertIid?: number;
  /** A thread on the project's `main` commit that reads share, once one asked for it. */
  thread?: { id: string; noteId: number };
  /** The object name of the head of the project's `main`, once one asked for it. */
  mainSha?: string;
  /** A thread on the project's shared snippet that reads share, once one asked for it. */
  snippetThread?: { id: string; noteId: number };
  /** A personal snippet of the owner and a snippet of the project that reads share, once one asked for them. */
  snippet?: number;
  projectSnippet?: number;
  /** Labels and milestones the reads share, by the path that lists them. */
  timeboxes?: Record<string, number>;
  /** An issue of the project that reads share, and a thread on it, once one asked for them. */
  issueIid?: number;
  issueThread?: { id: string; noteId: number };
  /** A merge request of the project that reads share, and a thread on it, once one asked for them. */
  mergeRequestIid?: number;
  mergeRequestThread?: { id: string; noteId: number };
  /** An epic of the fixture group (with a thread) that reads share. */
  epic?: { id: number; iid: number };
  epicThread?: { id: string; noteId: number };
  epicIssueId?: number;
  /** A Markdown upload of the project that reads share, once one asked for it. */
  upload?: Upload;
}

interface Upload {
  id: number;
  secret: string;
  filename: string;
}

/** A new branch of the fixture project with one commit on `main`, by its owner: its name. */
async function newBranchWithCommit(f: Fixtures): Promise<string> {
  const branch = unique('mr');
  const res = await t.api('POST', `/projects/${f.project.id}/repository/commits`, {
    token: f.owner.token,
    body: { branch, start_branch: 'main', commit_message: 'matrix', actions: [{ action: 'create', file_path: `${branch}.txt`, content: 'x' }] },
  });
  if (res.status !== 201) throw new Error(`branch: ${res.status} ${res.text}`);
  return branch;
}

/** A new merge request of the fixture project from a branch of its own, by its owner. */
async function newMergeRequest(f: Fixtures): Promise<number> {
  const branch = await newBranchWithCommit(f);
  const res = await t.api('POST', `/projects/${f.project.id}/merge_requests`, { token: f.owner.token, body: { source_branch: branch, target_branch: 'main', title: 'matrix' } });
  if (res.status !== 201) throw new Error(`merge request: ${res.status} ${res.text}`);
  return res.body.iid;
}

/** A new thread on a merge request of the fixture project, by its owner. */
async function newMergeRequestThread(f: Fixtures, iid: number): Promise<{ id: string; noteId: number }> {
  const res = await t.api('POST', `/projects/${f.project.id}/merge_requests/${iid}/discussions`, { token: f.owner.token, body: { body: 'matrix' } });
  if (res.status !== 201) throw new Error(`merge request thread: ${res.status} ${res.text}`);
  return { id: res.body.id, noteId: res.body.notes[0].id };
}

/** A new issue of the fixture project, by its owner. */
async function newIssue(f: Fixtures): Promise<number> {
  const res = await t.api('POST', `/projects/${f.project.id}/issues`, { token: f.owner.token, body: { title: 'matrix' } });
  if (res.status !== 201) throw new Error(`issue: ${res.status} ${res.text}`);
  return res.body.iid;
}

/** A new to-do item of the fixtures' owner, on a new issue of theirs: marking one done acts on one of its own. */
async function newTodo(f: Fixtures): Promise<number> {
  const res = await t.api('POST', `/projects/${f.project.id}/issues/${await newIssue(f)}/todo`, { token: f.owner.token });
  if (res.status !== 201) throw new Error(`todo: ${res.status} ${res.text}`);
  return res.body.id;
}

/** A new thread on an issue of the fixture project, by its owner. */
async function newIssueThread(f: Fixtures, iid: number): Promise<{ id: string; noteId: number }> {
  const res = await t.api('POST', `/projects/${f.project.id}/issues/${iid}/discussions`, { token: f.owner.token, body: { body: 'matrix' } });
  if (res.status !== 201) throw new Error(`issue thread: ${res.status} ${res.text}`);
  return { id: res.body.id, noteId: res.body.notes[0].id };
}

/** A new epic of the fixture group, by its owner. */
async function newEpic(f: Fixtures): Promise<{ id: number; iid: number }> {
  const res = await t.api('POST', `/groups/${f.group.id}/epics`, { token: f.owner.token, body: { title: 'matrix' } });
  if (res.status !== 201) throw new Error(`epic: ${res.status} ${res.text}`);
  return { id: res.body.id, iid: res.body.iid };
}

/** A new issue of the fixture project put in the epic of that iid: the association's id. */
async function newEpicIssue(f: Fixtures, epicIid: unknown): Promise<number> {
  const issue = await t.api('POST', `/projects/${f.project.id}/issues`, { token: f.owner.token, body: { title: 'matrix' } });
  const res = await t.api('POST', `/groups/${f.group.id}/epics/${epicIid}/issues/${issue.body.id}`, { token: f.owner.token });
  if (res.status !== 201) throw new Error(`epic issue: ${res.status} ${res.text}`);
  return res.body.id;
}

/** A new thread on an epic of the fixture group (by its id), by its owner. */
async function newEpicThread(f: Fixtures, epicId: unknown): Promise<{ id: string; noteId: number }> {
  const res = await t.api('POST', `/groups/${f.group.id}/epics/${epicId}/discussions`, { token: f.owner.token, body: { body: 'matrix' } });
  if (res.status !== 201) throw new Error(`epic thread: ${res.status} ${res.text}`);
  return { id: res.body.id, noteId: res.body.notes[0].id };
}

/** A new thread on the fixture project's `main` commit, by its owner: its id and its note's. */
async function newThread(f: Fixtures): Promise<{ id: string; noteId: number }> {
  const res = await t.api('POST', `/projects/${f.project.id}/repository/commits/main/discussions`, { token: f.owner.token, body: { body: 'matrix' } });
  if (res.status !== 201) throw new Error(`thread: ${res.status} ${res.text}`);
  return { id: res.body.id, noteId: res.body.notes[0].id };
}

/** A new thread on a snippet of the fixture project, by its owner: its id and its note's. */
async function newSnippetThread(f: Fixtures, snippetId: unknown): Promise<{ id: string; noteId: number }> {
  const res = await t.api('POST', `/projects/${f.project.id}/snippets/${snippetId}/discussions`, { token: f.owner.token, body: { body: 'matrix' } });
  if (res.status !== 201) throw new Error(`snippet thread: ${res.status} ${res.text}`);
  return { id: res.body.id, noteId: res.body.notes[0].id };
}

/** A new snippet of the owner's, personal or of the fixture project. */
async function newSnippet(f: Fixtures, inProject: boolean): Promise<number> {
  const path = inProject ? `/projects/${f.project.id}/snippets` : '/snippets';
  const res = await t.api('POST', path, { token: f.owner.token, body: { title: 'matrix', visibility: 'private', files: [{ file_path: 'matrix.txt', content: 'x' }] } });
  if (res.status !== 201) throw new Error(`snippet: ${res.status} ${res.text}`);
  return res.body.id;
}

/** A new project access token of the fixture project, made by its owner: writes act on one of their own. */
async function newProjectAccessToken(f: Fixtures): Promise<number> {
  const expires = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
  const res = await t.api('POST', `/projects/${f.project.id}/access_tokens`, { token: f.owner.token, body: { name: 'matrix', scopes: ['api'], expires_at: expires } });
  if (res.status !== 201) throw new Error(`project access token: ${res.status} ${res.text}`);
  return res.body.id;
}

/** A new generic package of the fixture project with one file: its id and its file's. */
async function newPackage(f: Fixtures): Promise<{ packageId: number; fileId: number }> {
  const res = await fetch(`${t.url}/api/v4/projects/${f.project.id}/packages/generic/${unique('matrix')}/1.0.0/file.txt?select=package_file`, {
    method: 'PUT',
    headers: { 'PRIVATE-TOKEN': f.owner.token },
    body: 'matrix',
  });
  const body = (await res.json()) as { package_id: number; id: number };
  if (res.status !== 201) throw new Error(`package: ${res.status} ${JSON.stringify(body)}`);
  return { packageId: body.package_id, fileId: body.id };
}

/** A new project runner of the fixture project: writes act on one of their own. */
async function newRunner(projectId: number): Promise<number> {
  const res = await t.api('POST', '/user/runners', { body: { runner_type: 'project_type', project_id: projectId } });
  if (res.status !== 201) throw new Error(`runner: ${res.status} ${res.text}`);
  return res.body.id;
}

/** A new webhook by root: a system hook, or a hook of the fixture project. Writes act on one of their own. */
async function newHook(path: string): Promise<number> {
  const res = await t.api('POST', path, { body: { url: 'https://example.com/matrix' } });
  if (res.status !== 201) throw new Error(`hook: ${res.status} ${res.text}`);
  return res.body.id;
}

/** A new error tracking client key of a project, created by root. */
async function newClientKey(projectId: number): Promise<number> {
  const res = await t.api('POST', `/projects/${projectId}/error_tracking/client_keys`);
  if (res.status !== 201) throw new Error(`client key: ${res.status} ${res.text}`);
  return res.body.id;
}

/** An alert of the fixture project, ingested through a new HTTP integration of it as an alerting tool sends it. */
async function newAlert(f: Fixtures): Promise<number> {
  const created = await t.graphql(
    'mutation($i: HttpIntegrationCreateInput!) { httpIntegrationCreate(input: $i) { integration { url token } } }',
    { i: { projectPath: String(f.project.id), name: unique('matrix'), active: true } },
    f.owner.token,
  );
  const integration = created.body.data?.httpIntegrationCreate?.integration;
  if (!integration) throw new Error(`alert integration: ${created.text}`);
  const res = await fetch(integration.url.replace(/^https?:\/\/[^/]+/, t.url), { method: 'POST', headers: { Authorization: `Bearer ${integration.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ title: 'matrix' }) });
  if (res.status !== 200) throw new Error(`alert: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { iid: number }[])[0]!.iid;
}

/** A new metric image of an alert of the fixture project (a multipart upload by its owner). */
async function newMetricImage(f: Fixtures, alertIid: number): Promise<number> {
  const form = new FormData();
  form.append('file', new Blob([Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')], { type: 'image/png' }), 'graph.png');
  const res = await fetch(`${t.url}/api/v4/projects/${f.project.id}/alert_management_alerts/${alertIid}/metric_images`, { method: 'POST', headers: { 'PRIVATE-TOKEN': f.owner.token }, body: form });
  if (res.status !== 201) throw new Error(`metric image: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: number }).id;
}

/** A new Markdown upload of the fixture project (a multipart upload by its owner). */
async function newUpload(f: Fixtures): Promise<Upload> {
  const form = new FormData();
  form.append('file', new Blob(['matrix']), 'matrix.txt');
  const res = await fetch(`${t.url}/api/v4/projects/${f.project.id}/uploads`, { method: 'POST', headers: { 'PRIVATE-TOKEN': f.owner.token }, body: form });
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { id: number; url: string };
  const [, , secret, filename] = body.url.split('/');
  return { id: body.id, secret: secret!, filename: filename! };
}

/** A new SSH key of a user, added by root. */
async function newKey(userId: number): Promise<number> {
  const res = await t.api('POST', `/users/${userId}/keys`, { body: { title: 'matrix', key: freshKey() } });
  if (res.status !== 201) throw new Error(`key: ${res.status} ${res.text}`);
  return res.body.id;
}

/**
 * A new API pipeline of the fixture project, with its first job: writes act on one of their own. Its owner runs it:
 * main is protected (Maintainers push and merge), which no administrator who is not a member passes.
 */
async function newPipeline(projectId: number, token: string): Promise<{ id: number; jobId: number }> {
  const res = await t.api('POST', `/projects/${projectId}/pipeline`, { token, body: { ref: 'main' } });
  if (res.status !== 201) throw new Error(`pipeline: ${res.status} ${res.text}`);
  const jobs = await t.api('GET', `/projects/${projectId}/pipelines/${res.body.id}/jobs`);
  return { id: res.body.id, jobId: jobs.body[0].id };
}

/** A new pipeline schedule of the fixture project, owned by its owner, on main, which only they may push to: writes act on one of their own. */
async function newSchedule(f: Fixtures): Promise<number> {
  const res = await t.api('POST', `/projects/${f.project.id}/pipeline_schedules`, { token: f.owner.token, body: { description: 'matrix', ref: 'main', cron: '0 1 * * *' } });
  if (res.status !== 201) throw new Error(`schedule: ${res.status} ${res.text}`);
  return res.body.id;
}

/** A new environment of the fixture project, stopped (only a stopped one may be deleted), made by its owner. */
async function newEnvironment(f: Fixtures): Promise<number> {
  const res = await t.api('POST', `/projects/${f.project.id}/environments`, { token: f.owner.token, body: { name: unique('matrix') } });
  if (res.status !== 201) throw new Error(`environment: ${res.status} ${res.text}`);
  await t.api('POST', `/projects/${f.project.id}/environments/${res.body.id}/stop`, { token: f.owner.token });
  return res.body.id;
}

/** A new external deployment of the fixture project's main, made by its owner. */
async function newDeployment(f: Fixtures): Promise<number> {
  const res = await t.api('POST', `/projects/${f.project.id}/deployments`, { token: f.owner.token, body: { environment: unique('matrix'), sha: 'main', ref: 'main', tag: false, status: 'created' } });
  if (res.status !== 201) throw new Error(`deployment: ${res.status} ${res.text}`);
  return res.body.id;
}

/** A new label or milestone (by the path that lists them: a project's or a group's), made by the fixtures' owner. */
async function newTimebox(f: Fixtures, path: string): Promise<number> {
  const body = path.endsWith('/labels') ? { name: unique('matrix'), color: '#123456' } : { title: unique('matrix') };
  const res = await t.api('POST', path, { token: f.owner.token, body });
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body.id;
}

/** A new instance OAuth application, made by root: deleting or renewing acts on one of its own. */
async function newApplication(): Promise<number> {
  const res = await t.api('POST', '/applications', { body: { name: unique('matrix'), redirect_uri: 'https://matrix.example.com/cb', scopes: 'api' } });
  if (res.status !== 200) throw new Error(`application: ${res.status} ${res.text}`);
  return res.body.id;
}

/** A token of the given kind: the owner's with one scope, root's (`admin`), expired, revoked, or none. */
async function tokenOf(kind: Kind, f: Fixtures): Promise<string | null> {
  if (kind === 'anonymous') return null;
  const userId = kind === 'admin' ? 1 : f.owner.id;
  const scopes = [kind === 'admin' || kind === 'expired' || kind === 'revoked' ? 'api' : kind];
  const res = await t.api('POST', `/users/${userId}/personal_access_tokens`, { body: { name: unique('matrix'), scopes } });
  if (res.status !== 201) throw new Error(`token: ${res.status} ${res.text}`);
  if (kind === 'expired') await t.server.database.prisma.personalAccessToken.update({ where: { id: res.body.id }, data: { expiresAt: new Date('2020-01-01') } });
  if (kind === 'revoked') await t.api('DELETE', `/personal_access_tokens/${res.body.id}`);
  return res.body.token;
}

/** Project routes whose writes change the project itself (see paramsFor). */
const OWN_PROJECT = /^\/projects\/:id(\/(archive|unarchive|transfer|fork|fork\/:forked_from_id|star|unstar))?$/;

/** Parameters that pass coercion: new fixtures for each write that succeeds, so that no surface meets another's leftovers. */
async function paramsFor(route: PreparedRoute, f: Fixtures): Promise<Record<string, unknown>> {
  const family = route.path.split('/')[1];
  const ids: Record<string, number> = { users: f.owner.id, groups: f.group.id, projects: f.project.id, namespaces: f.group.id, personal_access_tokens: f.tokenId, runners: f.runnerId };
  const params: Record<string, unknown> = {};
  if (route.path.includes(':id')) {
    if (family === 'keys') ids.keys = await newKey(f.owner.id);
    if (family === 'applications') ids.applications = await newApplication();
    if (family === 'todos') ids.todos = await newTodo(f);
    // An issue of the fixture project by its id (the administrators' `GET /issues/:id`).
    if (family === 'issues') ids.issues = (await t.api('GET', `/projects/${f.project.id}/issues/${(f.issueIid ??= await newIssue(f))}`, { token: f.owner.token })).body.id;
    if (family === 'snippets') ids.snippets = route.compiled.kind === 'mutation' ? await newSnippet(f, false) : (f.snippet ??= await newSnippet(f, false));
    if (!(family in ids)) throw new Error(`no fixture for :id of ${route.path}: add one`);
    params.id = String(ids[family]);
    // Changing, blocking or deleting a user acts on one of its own: the fixtures' owner must keep working for the routes that follow.
    if (family === 'users' && route.compiled.kind === 'mutation' && !route.path.endsWith('/personal_access_tokens')) params.id = String((await createUser(t)).id);
    // Deleting, archiving, moving, forking, linking or starring a project acts on one of its own: the fixture project
    // must stay as it is, and each surface must meet the same state (a second star or fork answers otherwise).
    if (family === 'projects' && route.compiled.kind === 'mutation' && OWN_PROJECT.test(route.path)) {
      params.id = String((await createProject(t, f.owner.token, { namespaceId: f.group.id })).id);
    }
    // Deleting a group acts on a subgroup of its own: the fixture group must stay for the routes that follow.
    if (family === 'groups' && route.method === 'DELETE' && route.path === '/groups/:id') params.id = String((await createGroup(t, f.owner.token, { parentId: f.group.id })).id);
    // Changing or deleting a runner acts on one of its own.
    if (family === 'runners' && route.compiled.kind === 'mutation') params.id = String(await newRunner(f.project.id));
  }
  const name = unique('m');
  let pkg: { packageId: number; fileId: number } | undefined;
  const packageOf = async () => (pkg ??= route.compiled.kind === 'mutation' ? await newPackage(f) : (f.package ??= await newPackage(f)));
  let upload: Upload | undefined;
  const uploadOf = async () => (upload ??= route.compiled.kind === 'mutation' ? await newUpload(f) : (f.upload ??= await newUpload(f)));
  let thread: { id: string; noteId: number } | undefined;
  // A thread of the issue or snippet the path names, or of the fixture commit (new for writes, shared by the reads).
  const threadOf = async () => {
    const writes = route.compiled.kind === 'mutation';
    // The notes and awards routes name their noteable `:noteable_id` or `:awardable_id`, its kind fixed by the route.
    const kind = route.variables?.noteableType ?? route.variables?.awardableType;
    const key = params.noteable_id ?? params.awardable_id;
    if (kind === 'ISSUE') {
      const iid = Number(key);
      return (thread ??= writes ? await newIssueThread(f, iid) : (f.issueThread ??= await newIssueThread(f, iid)));
    }
    if (kind === 'MERGE_REQUEST') {
      const iid = Number(key);
      return (thread ??= writes ? await newMergeRequestThread(f, iid) : (f.mergeRequestThread ??= await newMergeRequestThread(f, iid)));
    }
    if (kind === 'EPIC') {
      // Awards name an epic by iid, notes by id.
      const epicId = params.awardable_id === undefined ? key : (await t.api('GET', `/groups/${params.id}/epics/${key}`, { token: f.owner.token })).body.id;
      return (thread ??= writes ? await newEpicThread(f, epicId) : (f.epicThread ??= await newEpicThread(f, epicId)));
    }
    if (kind === 'SNIPPET') {
      return (thread ??= writes ? await newSnippetThread(f, key) : (f.snippetThread ??= await newSnippetThread(f, key)));
    }
    return (thread ??= writes ? await newThread(f) : (f.thread ??= await newThread(f)));
  };
  const timebox = async (path: string) => (route.compiled.kind === 'mutation' ? newTimebox(f, path) : ((f.timeboxes ??= {})[path] ??= await newTimebox(f, path)));
  const samples: Record<string, () => Promise<unknown> | unknown> = {
    name: () => name,
    // Notes: a thread on the fixture project's `main` commit (one the reads share, a new one for each write), and texts.
    body: () => name,
    note: () => name,
    discussionId: async () => (await threadOf()).id,
    // A merge request's thread resolves (each write has a thread of its own).
    resolved: () => true,
    // Awards and issue links: IDs none has (every surface answers them 404 Not found alike), a target issue.
    awardId: () => 2147483000,
    issueLinkId: () => 2147483000,
    targetIssueIid: () => '1',
    noteId: async () => (await threadOf()).noteId,
    path: () => name,
    username: () => name,
    email: () => `${name}@example.com`,
    // OAuth applications take their scopes space-separated, tokens as a list.
    scopes: () => (family === 'applications' ? 'api read_user' : ['api']),
    redirectUri: () => 'https://matrix.example.com/cb',
    accessLevel: () => 30,
    userId: async () => (await createUser(t)).id,
    // The repository API: path parameters, refs, and the wide `$input` of commits and file writes (its fields are top-level).
    sha: () => 'main',
    // Merge request context commits: the head of `main`, by its object name.
    commits: async () => [(f.mainSha ??= (await t.api('GET', `/projects/${f.project.id}/repository/commits/main`, { token: f.owner.token })).body.id)],
    ref: () => 'main',
    from: () => 'main',
    to: () => 'main',
    branch: () => name,
    tagName: () => name,
    filePath: () => `${name}.txt`,
    // Merge bases take two or more refs.
    refs: () => ['main', 'main'],
    triggerId: async () => (await t.api('POST', `/projects/${f.project.id}/triggers`, { body: { description: 'matrix' } })).body.id,
    // A trigger token authenticates by itself: every token kind gets the same wrong one, and the same 404.
    token: () => 'glptt-not-a-trigger',
    state: () => 'success',
    pipelineId: async () => (route.compiled.kind === 'mutation' ? await newPipeline(f.project.id, f.owner.token) : f.pipeline).id,
    jobId: async () => (route.compiled.kind === 'mutation' ? await newPipeline(f.project.id, f.owner.token) : f.pipeline).jobId,
    runnerId: async () => (route.compiled.kind === 'mutation' ? await newRunner(f.project.id) : f.runnerId),
    // Pipeline schedules: a schedule the reads share, a new one for each write, and what creating one needs.
    pipelineScheduleId: async () => (route.compiled.kind === 'mutation' ? await newSchedule(f) : (f.schedule ??= await newSchedule(f))),
    description: () => name,
    cron: () => '0 1 * * *',
    // A feature flag's gate takes true, false or a percentage.
    value: () => (family === 'features' ? 'true' : 'matrix-value'),
    // A user's SSH keys, e-mail addresses and impersonation tokens: of the user the path names, else the owner.
    title: () => name,
    fingerprint: () => 'SHA256:matrix',
    // Error tracking settings: enabled, with the integrated backend.
    active: () => true,
    integrated: () => true,
    // Error tracking client keys (a new one for each deletion), else a user's SSH key.
    keyId: async () => (route.path.includes('/error_tracking/') ? newClientKey(f.project.id) : newKey(Number(params.id ?? f.owner.id))),
    emailId: async () => (await t.api('POST', `/users/${params.id ?? f.owner.id}/emails`, { body: { email: `${unique('matrix')}@example.com` } })).body.id,
    impersonationTokenId: async () => (await t.api('POST', `/users/${params.id ?? f.owner.id}/impersonation_tokens`, { body: { name: 'matrix', scopes: ['api'] } })).body.id,
    // Webhooks: a system hook or a hook of the fixture project or group (one the reads share, a new one for each write), and a test trigger.
    hookId: async () => {
      const path = route.path.startsWith('/hooks') ? '/hooks' : route.path.startsWith('/groups') ? `/groups/${f.group.id}/hooks` : `/projects/${f.project.id}/hooks`;
      return route.compiled.kind === 'mutation' ? newHook(path) : ((f.hooks ??= {})[path] ??= await newHook(path));
    },
    // A logged delivery of that hook, to a URL the hook no longer has: a resend is refused (422) without a request.
    hookLogId: async () =>
      (
        await t.server.database.prisma.webHookLog.create({
          data: { webHookId: Number(params.hook_id), trigger: 'push_hooks', url: 'https://example.com/before', requestHeaders: {}, requestData: {}, responseHeaders: {}, responseBody: '', responseStatus: '200', executionDuration: 0 },
        })
      ).id,
    trigger: () => 'push_events',
    // Alerts: an alert of the fixture project the routes share, and a new metric image of it for each write.
    alertIid: async () => String((f.alertIid ??= await newAlert(f))),
    metricImageId: async () => newMetricImage(f, (f.alertIid ??= await newAlert(f))),
    // Markdown uploads: one the reads share, a new one for each deletion, by ID or by secret and file name.
    uploadId: async () => (await uploadOf()).id,
    secret: async () => (await uploadOf()).secret,
    filename: async () => (await uploadOf()).filename,
    // CI Lint: a configuration to check.
    content: () => 'job:\n  script: echo\n',
    // The wide inputs: runners, commits and file writes, CI/CD variables (`key`, `value`); each route ignores the others' fields.
    input: () => ({
      runner_type: 'instance_type',
      description: name,
      branch: 'main',
      commit_message: 'matrix',
      file_path: `${name}.txt`,
      content: 'x',
      actions: [{ action: 'create', file_path: `${name}.txt`, content: 'x' }],
      key: name.replace(/-/g, '_'),
      value: 'matrix-value',
      url: 'https://example.com/matrix',
    }),
    // The key of a CI/CD variable in a path (letters, digits and `_`), or an SSH public key.
    key: () => (route.path.includes('/keys') ? freshKey() : name.replace(/-/g, '_')),
    // Job token allowlists: a new project or group each time, so no surface meets a link another one added.
    targetProjectId: async () => (await createProject(t, f.owner.token)).id,
    targetGroupId: async () => (await createGroup(t, f.owner.token)).id,
    // Project transfers and fork relations: a new group to move into, a new project to be a fork of.
    namespace: async () => (await createGroup(t, f.owner.token)).id,
    forkedFromId: async () => (await createProject(t, f.owner.token)).id,
    // The inbound job token scope setting: left on, as every other route expects.
    enabled: () => true,
    // Sharing with a group: a new group of the owner's each time, so no surface meets a share another one made.
    groupId: async () => (await createGroup(t, f.owner.token)).id,
    groupAccess: () => 30,
    // Repository storage moves (administrators only): the instance's one storage, and a move no one scheduled.
    sourceStorageName: () => 'default',
    repositoryStorageMoveId: () => 2147483000,
    // Project access tokens: one the reads share, a new one for each write (rotation and revocation end it).
    tokenId: async () => (route.compiled.kind === 'mutation' ? await newProjectAccessToken(f) : (f.projectAccessToken ??= await newProjectAccessToken(f))),
    expiresAt: () => new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10),
    // Labels and milestones of the project or group the path names: one the reads share, a new one for each write.
    labelId: async () => timebox(`/${family}/${params.id}/labels`),
    milestoneId: async () => timebox(`/${family}/${params.id}/milestones`),
    color: () => '#123456',
    // Packages: one the reads share, a new one (with its file) for each delete.
    packageId: async () => (await packageOf()).packageId,
    packageFileId: async () => (await packageOf()).fileId,
    // Snippets: one of the project the reads share, a new one for each write; new ones are private.
    snippetId: async () => (route.compiled.kind === 'mutation' ? await newSnippet(f, true) : (f.projectSnippet ??= await newSnippet(f, true))),
    visibility: () => 'private',
    // Issues: one the reads share (with a thread), a new one for each write; time tracking durations.
    issueIid: async () => String(route.compiled.kind === 'mutation' ? await newIssue(f) : (f.issueIid ??= await newIssue(f))),
    duration: () => '1h',
    // Merge requests: one the reads share (with a thread), a new one for each write, each from a branch of its own.
    mergeRequestIid: async () => String(route.compiled.kind === 'mutation' ? await newMergeRequest(f) : (f.mergeRequestIid ??= await newMergeRequest(f))),
    sourceBranch: async () => newBranchWithCommit(f),
    // Draft notes: a new one of the owner's on the merge request the path names (publishing and deleting end it).
    draftNoteId: async () =>
      (await t.api('POST', `/projects/${params.id}/merge_requests/${params.merge_request_iid}/draft_notes`, { token: f.owner.token, body: { note: 'matrix' } })).body.id,
    targetBranch: () => 'main',
    // Merge request diff versions: the shared merge request's newest one.
    versionId: async () => {
      const res = await t.api('GET', `/projects/${f.project.id}/merge_requests/${(f.mergeRequestIid ??= await newMergeRequest(f))}/versions`, { token: f.owner.token });
      return res.body[0].id;
    },
    // Epics of the fixture group: one the reads share (with a thread and an issue), a new one for each write.
    epicIid: async () => String((route.compiled.kind === 'mutation' ? await newEpic(f) : (f.epic ??= await newEpic(f))).iid),
    epicId: async () => String((route.compiled.kind === 'mutation' ? await newEpic(f) : (f.epic ??= await newEpic(f))).id),
    issueId: async () => (await t.api('POST', `/projects/${f.project.id}/issues`, { token: f.owner.token, body: { title: 'matrix' } })).body.id,
    epicIssueId: async () => newEpicIssue(f, params.epic_iid),
    // Child and related epics: a new epic of the group to become a child; a related link no one made; the target epic
    // by iid in the group `target_group_id` names (a new group of the owner's, which has none: every surface 404s alike).
    childEpicId: async () => (await newEpic(f)).id,
    relatedEpicLinkId: () => 2147483000,
    targetEpicIid: () => 1,
    // Issue move and clone: to the fixture project itself (a clone there is made; a move there is refused in the payload).
    toProjectId: () => String(f.project.id),
    // Release links: an ID no link has (the routes' release, named by a fresh tag, is not there either).
    linkId: () => 2147483000,
    url: () => 'https://example.com/matrix',
    // A resource event of the shared issue: an id none has (every surface answers it 404 Not found alike).
    eventId: () => '2147483000',
    // Environments and deployments: ones the reads share, new ones for each write.
    environmentId: async () => (route.compiled.kind === 'mutation' ? await newEnvironment(f) : (f.environmentId ??= await newEnvironment(f))),
    deploymentId: async () => (route.compiled.kind === 'mutation' ? await newDeployment(f) : (f.deploymentId ??= await newDeployment(f))),
    environment: () => name,
    tag: () => false,
    status: () => 'success',
    before: () => new Date(Date.now() - 8 * 86_400_000).toISOString(),
  };
  // The notes and awards routes' noteable: the key of the kind the route fixes (awards name an epic by iid).
  const noteableKey: Record<string, string> = { ISSUE: 'issueIid', MERGE_REQUEST: 'mergeRequestIid', SNIPPET: 'snippetId', EPIC: 'epicId' };
  const awardableKey: Record<string, string> = { ...noteableKey, EPIC: 'epicIid' };
  for (const v of route.compiled.variables) {
    // An optional variable the route's path fills is required there (one operation serving a noteable and its notes).
    const inPath = route.path.includes(`:${v.name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`);
    if (v.name === 'id' || v.name === 'first' || v.name === 'after' || ((v.hasDefault || !String(v.type).endsWith('!')) && !inPath)) continue;
    if (route.variables && v.name in route.variables) continue;
    const sample =
      v.name === 'noteableId'
        ? samples[noteableKey[String(route.variables?.noteableType)]]
        : v.name === 'awardableId'
          ? samples[awardableKey[String(route.variables?.awardableType)]]
          : samples[v.name];
    if (!sample) throw new Error(`no sample value for required $${v.name} of ${route.operation}: add one`);
    if (v.name === 'input') Object.assign(params, await sample());
    else params[v.name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = await sample();
  }
  // Optional ones that change who is added, where a route needs one of a set (members: user_id or username).
  if (route.compiled.variables.some((v) => v.name === 'userId') && !('user_id' in params) && route.method === 'POST' && route.path.endsWith('/members')) {
    params.user_id = await samples.userId();
  }
  // Changing or removing a member acts on a member of its own, a Developer added by the owner.
  if (/\/members\/:user_id$/.test(route.path) && route.compiled.kind === 'mutation') {
    const member = await createUser(t);
    const added = await t.api('POST', `/${family}/${params.id}/members`, { token: f.owner.token, body: { user_id: member.id, access_level: 30 } });
    if (added.status !== 201) throw new Error(`member: ${added.status} ${added.text}`);
    params.user_id = member.id;
  }
  // A snippet is created with one file, by the deprecated `file_name` beside the `content` sample.
  if (route.method === 'POST' && route.path.endsWith('/snippets')) params.file_name = 'matrix.txt';
  // Impersonation tokens take scopes as GitLab's do: optional to the API, required by the token.
  if (route.method === 'POST' && route.path.endsWith('/impersonation_tokens')) params.scopes = ['api'];
  return params;
}

/**
 * A relay mutation's refusal in its payload's `errors` (a record that does not validate, a refusal for the object's
 * state): the REST adapter, given the coded error itself, answers it 400, 403 or 409 by its code, which the payload's
 * words do not carry. It means the caller got past the scopes and abilities this matrix is about.
 */
const PAYLOAD_REFUSAL = -1;

/** The route's operation as GraphQL callers send it: a mutation's payload also asked for its `errors`. */
const withErrors = new Map<PreparedRoute, string>();
function documentOf(route: PreparedRoute): string {
  let text = withErrors.get(route);
  if (text === undefined) {
    const document = route.compiled.document;
    const [op, ...rest] = document.definitions as [OperationDefinitionNode, ...DefinitionNode[]];
    const errorsField: FieldNode = { kind: AstKind.FIELD, name: { kind: AstKind.NAME, value: 'errors' } };
    const selections = op.selectionSet.selections.map((node) =>
      op.operation === 'mutation' && node.kind === AstKind.FIELD && node.selectionSet ? { ...node, selectionSet: { ...node.selectionSet, selections: [...node.selectionSet.selections, errorsField] } } : node,
    );
    // Sent compact, as clients send long operations: GitLab's 10,000-character bound counts whitespace too (the
    // To-Do List API's, with an issue, a merge request and an epic as targets, is that long only when indented).
    text = stripIgnoredCharacters(print({ ...document, definitions: [{ ...op, selectionSet: { ...op.selectionSet, selections } }, ...rest] }));
    withErrors.set(route, text);
  }
  return text;
}
const REFUSED_STATUSES = [400, 403, 409];

/** The status REST would give for a GraphQL result, by the adapter's own rule. */
function statusOf(route: PreparedRoute, result: ExecutionResult<Record<string, unknown>>): number {
  const payload = result.data?.[route.resultPath[0]] as { errors?: unknown[] } | null | undefined;
  if (route.compiled.kind === 'mutation' && !result.errors?.length && payload?.errors?.length) return PAYLOAD_REFUSAL;
  const errors = result.errors?.map((e) => new GraphQLError(e.message, { extensions: e.extensions }));
  try {
    routeValue(route, { data: result.data, errors });
    return route.status ?? (route.method === 'POST' ? 201 : 200);
  } catch (error) {
    return restError(error as GraphQLError).status;
  }
}

function variables(route: PreparedRoute, params: Record<string, unknown>): Record<string, unknown> {
  const vars = variablesFromParams(route.compiled.variables, params, route.variables);
  return route.paginate ? { ...vars, ...connectionArgs(readOffsetPage(params)) } : vars;
}

async function viaRest(route: PreparedRoute, token: string | null, params: Record<string, unknown>): Promise<ApiResponse> {
  const rest = { ...params };
  const path = route.path.replace(/:(\w+)/g, (_m, name: string) => {
    const value = rest[name];
    delete rest[name];
    return encodeURIComponent(String(value ?? ''));
  });
  if (route.method === 'GET' || route.method === 'DELETE') {
    const qs = new URLSearchParams(Object.entries(rest).map(([k, v]): [string, string] => [k, String(v)])).toString();
    return t.api(route.method, qs ? `${path}?${qs}` : path, { token });
  }
  return t.api(route.method, path, { token, body: rest });
}

async function viaHttp(route: PreparedRoute, token: string | null, params: Record<string, unknown>): Promise<number> {
  const res = await t.graphql(documentOf(route), variables(route, params), token);
  if (res.status === 401) return 401;
  return statusOf(route, res.body as ExecutionResult<Record<string, unknown>>);
}

async function viaWebSocket(route: PreparedRoute, token: string | null, params: Record<string, unknown>): Promise<number> {
  const client = createClient({
    url: `${t.url.replace('http', 'ws')}/api/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: token ? { 'PRIVATE-TOKEN': token } : {},
    retryAttempts: 0,
  });
  try {
    const result = await new Promise<ExecutionResult<Record<string, unknown>> | 'refused'>((resolve) => {
      let last: ExecutionResult<Record<string, unknown>> = {};
      client.subscribe(
        { query: documentOf(route), variables: variables(route, params) },
        {
          next: (r) => (last = r as ExecutionResult<Record<string, unknown>>),
          // The server closes the socket with 4403 when the token does not authenticate; an operation it refuses before
          // running it (validation, GitLab's complexity bound) comes as graphql-ws's `error` message, the errors as sent.
          error: (e) =>
            resolve((e as { code?: number }).code === 4403 ? 'refused' : Array.isArray(e) ? { errors: e as GraphQLError[] } : { errors: [new GraphQLError(String(e))] }),
          complete: () => resolve(last),
        },
      );
    });
    return result === 'refused' ? 401 : statusOf(route, result);
  } finally {
    await client.dispose();
  }
}

/** The matrix of every SHARDS-th route from `shard` on. */
export function scopeMatrix(shard: number): void {
  t = suiteServer({ rateLimitPerMinute: 0 });
  const mine = routes.filter((_, i) => i % SHARDS === shard);
  describe(`scopes and abilities agree over REST, GraphQL over HTTP and graphql-ws (${shard + 1} of ${SHARDS})`, () => {
    let fixtures: Fixtures | undefined;
    const setup = async (): Promise<Fixtures> => {
      if (fixtures) return fixtures;
      const owner = await createUser(t);
      const group = await createGroup(t, owner.token);
      const project = await createProject(t, owner.token, { namespaceId: group.id });
      const ci = await t.api('POST', `/projects/${project.id}/repository/commits`, {
        body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: 'build:\n  script: echo\n' }] },
        token: owner.token,
      });
      if (ci.status !== 201) throw new Error(`commit: ${ci.status} ${ci.text}`);
      // The token routes revoke the fixture token: one of its own, so that the owner's first token keeps working.
      const spare = await t.api('POST', `/users/${owner.id}/personal_access_tokens`, { body: { name: unique('spare'), scopes: ['api'] } });
      fixtures = { owner, group, project, tokenId: spare.body.id, pipeline: await newPipeline(project.id, owner.token), runnerId: await newRunner(project.id) };
      return fixtures;
    };
    const outcomes = new Map<string, number>();
    // Tokens every route shares, by kind, until a write succeeds with one (it may have revoked or rotated it).
    const tokens = new Map<Kind, Promise<string | null>>();

    for (const route of mine) {
      it(`${route.method} ${route.path} (${route.operation})`, async () => {
        const f = await setup();
        const write = route.compiled.kind === 'mutation';
        // Parameters (and the fixtures they name) are made once and shared by every call until a write succeeds: a
        // refused call changes nothing, so the next kind or surface meets the same state with the same values, and a
        // successful write hands the next call fresh ones.
        let params: Promise<Record<string, unknown>> | undefined;
        const call = async (kind: Kind, surface: typeof viaRest | typeof viaHttp | typeof viaWebSocket): Promise<number> => {
          const token = tokens.get(kind) ?? tokens.set(kind, tokenOf(kind, f)).get(kind)!;
          params ??= paramsFor(route, f);
          const res = await surface(route, await token, await params);
          const status = typeof res === 'number' ? res : res.status;
          if (write && status < 300) {
            params = undefined;
            tokens.delete(kind);
          }
          return status;
        };
        for (const kind of KINDS) {
          const rest = await call(kind, viaRest);
          // GitLab's subscriptions API answers 304 where nothing would change; its GraphQL sets the same state again
          // without complaint: both a success that changed nothing.
          const same = (status: number) => (status === PAYLOAD_REFUSAL && REFUSED_STATUSES.includes(rest) ? rest : rest === 304 && status < 300 ? 304 : status);
          const http = same(await call(kind, viaHttp));
          const ws = same(await call(kind, viaWebSocket));
          // GitLab's REST `authenticate!` gate answers anonymous callers 401 before the subject is looked at; its
          // GraphQL has no such gate and answers them as the subject's visibility decides, the same over both transports.
          const gated = route.authenticate && kind === 'anonymous';
          expect({ kind, rest, http, ws }).toEqual(gated ? { kind, rest: 401, http: ws, ws: http } : { kind, rest, http: rest, ws: rest });
          expect(rest).toBeLessThan(500);
          outcomes.set(`${kind} ${route.method} ${route.path}`, rest);
        }
      });
    }

    // The matrix is not vacuous: GitLab's scope rules, as they show through every surface.
    it('answers as GitLab for the scopes each route accepts', () => {
      const expected: [string, number][] = [
        ['read_user GET /projects', 403],
        ['read_user GET /user', 200],
        ['read_user GET /users/:id', 200],
        ['read_user GET /version', 200],
        ['read_user GET /namespaces', 403],
        ['read_user GET /events', 200],
        ['read_api GET /events', 200],
        ['read_api GET /users/:id/events', 200],
        ['read_user GET /projects/:id/events', 403],
        ['anonymous GET /events', 401],
        ['anonymous GET /users/:id/events', 200],
        ['read_api GET /projects/:id', 200],
        ['read_api GET /projects/:id/pipelines', 200],
        ['read_api POST /projects/:id/pipeline', 403],
        ['read_repository GET /projects/:id/pipelines', 403],
        ['api POST /projects/:id/pipeline', 201],
        ['anonymous GET /projects/:id/pipelines/:pipeline_id', 404],
        ['read_api POST /groups', 403],
        ['read_api DELETE /personal_access_tokens/self', 204],
        ['read_repository GET /personal_access_tokens/self', 200],
        ['read_repository GET /user', 403],
        ['sudo DELETE /personal_access_tokens/:id', 403],
        ['api POST /projects/:id/members', 201],
        ['api PUT /groups/:id/members/:user_id', 200],
        ['read_api PUT /groups/:id/members/:user_id', 403],
        ['api DELETE /projects/:id/members/:user_id', 204],
        ['read_api DELETE /projects/:id/members/:user_id', 403],
        ['api GET /projects/:id/members/:user_id', 404],
        ['api POST /users', 403],
        ['admin POST /users', 201],
        ['expired GET /user', 401],
        ['revoked GET /projects', 401],
        ['anonymous GET /projects/:id', 404],
        ['anonymous GET /user', 401],
        ['anonymous GET /version', 401],
        ['anonymous POST /groups', 401],
        ['anonymous GET /namespaces/:id', 401],
        ['api POST /projects/:id/pipeline_schedules', 201],
        ['read_api POST /projects/:id/pipeline_schedules', 403],
        ['read_api GET /projects/:id/pipeline_schedules/:pipeline_schedule_id', 200],
        // API::Ci::PipelineSchedules authenticates first: 401 for anonymous callers, whatever the project.
        ['anonymous GET /projects/:id/pipeline_schedules', 401],
        ['api POST /projects/:id/pipeline_schedules/:pipeline_schedule_id/play', 201],
        ['api DELETE /projects/:id', 202],
        ['read_api DELETE /projects/:id', 403],
        ['api POST /projects/:id/star', 201],
        ['anonymous POST /projects/:id/star', 401],
        ['api PUT /projects/:id/transfer', 200],
        ['api POST /projects/:id/fork', 201],
        ['admin POST /projects/:id/fork/:forked_from_id', 201],
        ['api POST /projects/:id/fork/:forked_from_id', 403],
        ['api PUT /groups/:id', 200],
        ['read_api PUT /groups/:id', 403],
        ['api POST /projects/:id/share', 201],
        ['anonymous DELETE /groups/:id/share/:group_id', 401],
        ['api DELETE /groups/:id/share/:group_id', 404],
        ['anonymous GET /users/:id', 403],
        ['read_user GET /user/keys', 200],
        ['read_user GET /user/status', 200],
        ['anonymous GET /users/:id/keys', 200],
        ['read_user GET /users/:id/projects', 403],
        ['api PUT /users/:id', 403],
        ['admin PUT /users/:id', 200],
        ['api DELETE /users/:id', 403],
        ['admin DELETE /users/:id', 204],
        ['admin POST /users/:id/ban', 201],
        ['api GET /users/:id/memberships', 403],
        ['admin GET /users/:id/memberships', 200],
        ['admin POST /users/:id/impersonation_tokens', 201],
        ['admin DELETE /users/:id/impersonation_tokens/:impersonation_token_id', 204],
        ['read_api POST /user/keys', 403],
        ['api POST /user/keys', 201],
        ['admin DELETE /users/:id/keys/:key_id', 204],
        ['api DELETE /user/emails/:email_id', 204],
        ['api GET /keys/:id', 403],
        ['admin GET /keys/:id', 200],
        ['api GET /issues/:id', 403],
        ['admin GET /issues/:id', 200],
        ['anonymous GET /issues/:id', 401],
        ['admin POST /features/:name', 201],
        ['api POST /features/:name', 403],
        ['anonymous POST /features/:name', 401],
        ['read_api GET /features', 403],
        ['admin GET /features/definitions', 200],
        ['admin DELETE /features/:name', 204],
        ['api GET /experiments', 403],
        ['admin GET /experiments', 200],
        ['anonymous GET /experiments', 401],
        ['admin POST /applications', 200],
        ['api POST /applications', 403],
        ['anonymous GET /applications', 401],
        ['read_api GET /applications', 403],
        ['admin DELETE /applications/:id', 204],
        ['admin POST /applications/:id/renew-secret', 200],
        ['read_user DELETE /applications/:id', 403],
        ['api GET /hooks', 403],
        ['admin GET /hooks', 200],
        ['read_api POST /hooks', 403],
        ['admin POST /hooks', 201],
        ['admin DELETE /hooks/:hook_id', 204],
        ['api POST /projects/:id/hooks', 201],
        ['read_api POST /projects/:id/hooks', 403],
        ['read_api GET /projects/:id/hooks/:hook_id', 200],
        ['anonymous GET /projects/:id/hooks', 404],
        ['api POST /projects/:id/hooks/:hook_id/test/:trigger', 201],
        ['api POST /projects/:id/hooks/:hook_id/events/:hook_log_id/resend', 422],
        ['read_api POST /projects/:id/hooks/:hook_id/events/:hook_log_id/resend', 403],
        ['api POST /groups/:id/hooks', 201],
        ['read_api POST /groups/:id/hooks', 403],
        ['read_api GET /groups/:id/hooks/:hook_id', 200],
        ['api DELETE /groups/:id/hooks/:hook_id', 204],
        ['api POST /groups/:id/hooks/:hook_id/events/:hook_log_id/resend', 422],
        ['api GET /projects/:id/storage', 403],
        ['admin GET /projects/:id/storage', 200],
        ['anonymous GET /projects/:id/storage', 401],
        ['api POST /projects/:id/error_tracking/client_keys', 201],
        ['read_api POST /projects/:id/error_tracking/client_keys', 403],
        ['read_api GET /projects/:id/error_tracking/client_keys', 200],
        ['anonymous GET /projects/:id/error_tracking/client_keys', 404],
        ['api DELETE /projects/:id/error_tracking/client_keys/:key_id', 200],
        ['api PUT /projects/:id/error_tracking/settings', 200],
        ['read_api PUT /projects/:id/error_tracking/settings', 403],
        ['anonymous PUT /projects/:id/error_tracking/settings', 401],
        ['read_api PATCH /projects/:id/error_tracking/settings', 403],
        ['api GET /projects/:id/merge_trains', 200],
        ['anonymous GET /projects/:id/merge_trains', 401],
        ['read_api GET /projects/:id/merge_trains/:target_branch', 200],
        ['api GET /projects/:id/merge_trains/merge_requests/:merge_request_iid', 404],
        ['api POST /projects/:id/merge_trains/merge_requests/:merge_request_iid', 400],
        ['read_api POST /projects/:id/merge_trains/merge_requests/:merge_request_iid', 403],
        ['api POST /projects/:id/merge_requests/:merge_request_iid/time_estimate', 200],
        ['read_api POST /projects/:id/merge_requests/:merge_request_iid/time_estimate', 403],
        ['api POST /projects/:id/merge_requests/:merge_request_iid/reset_time_estimate', 200],
        ['api POST /projects/:id/merge_requests/:merge_request_iid/add_spent_time', 201],
        ['anonymous POST /projects/:id/merge_requests/:merge_request_iid/add_spent_time', 401],
        ['api POST /projects/:id/merge_requests/:merge_request_iid/reset_spent_time', 200],
        ['api PUT /projects/:id/issues/:issue_iid/reorder', 400],
        ['api POST /projects/:id/merge_requests/:merge_request_iid/draft_notes', 201],
        ['read_api POST /projects/:id/merge_requests/:merge_request_iid/draft_notes', 403],
        ['anonymous GET /projects/:id/merge_requests/:merge_request_iid/draft_notes', 401],
        ['api GET /projects/:id/merge_requests/:merge_request_iid/draft_notes/:draft_note_id', 200],
        ['api PUT /projects/:id/merge_requests/:merge_request_iid/draft_notes/:draft_note_id/publish', 204],
        ['api POST /projects/:id/merge_requests/:merge_request_iid/draft_notes/bulk_publish', 204],
        ['read_api PUT /projects/:id/issues/:issue_iid/reorder', 403],
      ];
      // Each shard checks the expectations of its own routes; together they check them all, and each names a route.
      const names = (list: PreparedRoute[]) => ([key]: [string, number]) => list.some((route) => key.endsWith(` ${route.method} ${route.path}`));
      expect(expected.filter((e) => !names(routes)(e))).toEqual([]);
      const own = expected.filter(names(mine));
      expect(own.map(([key]) => [key, outcomes.get(key)])).toEqual(own);
    });
  });
}
