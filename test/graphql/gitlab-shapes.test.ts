/**
 * GitLab's GraphQL shapes mended for issue 24, read with queries written as for gitlab.com: runners' projects and
 * groups, a job's artifacts and test report as connections, `CiJob.trace` as a CiJobTrace, BigInt sizes, GitLab's
 * enums, and global IDs in the inputs of member bulk updates and runner creation. REST keeps its shapes.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ansiToHtml } from '../../src/modules/pipelines/ansi2html.js';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser } from '../support/factories.js';
import { createRunner, projectWithConfig, requestJob, runnerCall } from '../runners/support.js';

let statements = 0;
const t = suiteServer({ ciLongPollingMs: 0 }, { onQuery: () => void statements++ });

async function claimed(config: string) {
  const setup = await projectWithConfig(t, config);
  const runner = await createRunner(t, { project_id: setup.project.id });
  const job = await requestJob(t, runner.token);
  return { ...setup, runner, job };
}

function patch(job: { id: number; token: string }, offset: number, content: string) {
  return runnerCall(t, 'PATCH', `/jobs/${job.id}/trace`, content, {
    'Content-Type': 'text/plain',
    'JOB-TOKEN': job.token,
    'Content-Range': `${offset}-${offset + Buffer.byteLength(content) - 1}`,
  });
}

async function upload(job: { id: number; token: string }, content: Buffer, query: Record<string, string>, fileName: string) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(content)]), fileName);
  const res = await fetch(`${t.url}/api/v4/jobs/${job.id}/artifacts?${new URLSearchParams(query)}`, { method: 'POST', body: form, headers: { 'JOB-TOKEN': job.token } });
  expect(res.status, await res.text()).toBe(201);
}

const gid = (model: string, id: number) => `gid://gitlab/${model}/${id}`;

describe('CiRunner.projects and CiRunner.groups', () => {
  it('are connections with GitLab’s arguments, only readable projects, batched across runners', async () => {
    const owner = await createUser(t);
    const stranger = await createUser(t);
    const group = await createGroup(t, owner.token);
    const [a, b, c] = [
      await createProject(t, owner.token, { namespaceId: group.id, name: 'alpha-one' }),
      await createProject(t, owner.token, { namespaceId: group.id, name: 'beta-two' }),
      await createProject(t, stranger.token, { name: 'gamma-three' }),
    ];
    const runner = await createRunner(t, { project_id: a.id });
    expect((await t.api('POST', `/projects/${b.id}/runners`, { body: { runner_id: runner.id } })).status).toBe(201);
    expect((await t.api('POST', `/projects/${c.id}/runners`, { body: { runner_id: runner.id } })).status).toBe(201);
    const groupRunner = await createRunner(t, { runner_type: 'group_type', group_id: group.id });

    const query = `query($id: CiRunnerID!, $search: String, $after: String, $sort: String) {
      runner(id: $id) {
        projects(first: 1, after: $after, search: $search, sort: $sort) { count nodes { fullPath } pageInfo { hasNextPage endCursor } }
        groups { count nodes { fullPath } }
      }
    }`;
    const first = await t.graphql(query, { id: gid('Ci::Runner', runner.id) }, owner.token);
    expect(first.body.errors).toBeUndefined();
    // The owner reads a and b, not the stranger's private c; ordered by ID, a page of one.
    expect(first.body.data.runner.projects).toMatchObject({ count: 2, nodes: [{ fullPath: a.path_with_namespace }], pageInfo: { hasNextPage: true } });
    expect(first.body.data.runner.groups).toEqual({ count: 0, nodes: [] });
    const next = await t.graphql(query, { id: gid('Ci::Runner', runner.id), after: first.body.data.runner.projects.pageInfo.endCursor }, owner.token);
    expect(next.body.data.runner.projects).toMatchObject({ count: 2, nodes: [{ fullPath: b.path_with_namespace }], pageInfo: { hasNextPage: false } });
    const searched = await t.graphql(query, { id: gid('Ci::Runner', runner.id), search: 'beta' }, owner.token);
    expect(searched.body.data.runner.projects).toMatchObject({ count: 1, nodes: [{ fullPath: b.path_with_namespace }] });
    const descending = await t.graphql(query, { id: gid('Ci::Runner', runner.id), sort: 'id_desc' }, owner.token);
    expect(descending.body.data.runner.projects.nodes).toEqual([{ fullPath: b.path_with_namespace }]);
    // Administrators read all three.
    const admin = await t.graphql(query, { id: gid('Ci::Runner', runner.id) }, t.rootToken);
    expect(admin.body.data.runner.projects.count).toBe(3);

    const grouped = await t.graphql(query, { id: gid('Ci::Runner', groupRunner.id) }, owner.token);
    expect(grouped.body.data.runner).toMatchObject({ projects: { count: 0, nodes: [] }, groups: { count: 1, nodes: [{ fullPath: group.full_path }] } });

    // REST's runner details still list projects and groups as arrays.
    const details = await t.api('GET', `/runners/${runner.id}`, { token: owner.token });
    expect(details.body.projects.map((p: { id: number }) => p.id)).toEqual([a.id, b.id]);
    expect(details.body.groups).toEqual([]);
    const groupDetails = await t.api('GET', `/runners/${groupRunner.id}`, { token: owner.token });
    expect(groupDetails.body.groups).toEqual([{ id: group.id, web_url: expect.stringContaining(group.full_path), name: group.name }]);
  });

  it('loads the projects of a page of runners in a bounded number of statements', async () => {
    const owner = await createUser(t);
    const project = await createProject(t, owner.token);
    for (let i = 0; i < 6; i++) await createRunner(t, { project_id: project.id });
    const count = async (first: number) => {
      const before = statements;
      const res = await t.graphql(`query($p: ID!, $n: Int) { project(fullPath: $p) { runners(first: $n) { nodes { projects { count nodes { fullPath } } groups { count } } } } }`, { p: project.path_with_namespace, n: first }, owner.token);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.project.runners.nodes).toHaveLength(first);
      for (const node of res.body.data.project.runners.nodes) expect(node.projects).toEqual({ count: 1, nodes: [{ fullPath: project.path_with_namespace }] });
      return statements - before;
    };
    // Warm the viewer's remembered credentials and memberships, then compare: more runners, no more statements.
    await count(1);
    expect(await count(6)).toBe(await count(2));
  });
});

describe('a job as GitLab’s CiJob', () => {
  it('has artifacts as a CiJobArtifactConnection (JobArtifactFileType, BigInt size), REST numbers unchanged', async () => {
    const { project, job } = await claimed('rspec:\n  script: echo\n');
    const junit = gzipSync('<testsuite name="s"><testcase classname="A" name="one" time="0.5"/><testcase classname="A" name="two"><failure>bad</failure></testcase><testcase classname="A" name="three"><skipped/></testcase></testsuite>');
    await upload(job, junit, { artifact_type: 'junit', artifact_format: 'gzip' }, 'junit.xml.gz');
    await upload(job, Buffer.from('PK\u0005\u0006' + '\0'.repeat(18)), { artifact_type: 'archive', artifact_format: 'zip' }, 'artifacts.zip');
    const res = await t.graphql(
      `query($p: ID!, $id: JobID!) { project(fullPath: $p) { job(id: $id) { artifacts(first: 1) { count nodes { fileType size } pageInfo { hasNextPage } } all: artifacts { nodes { fileType size } } } } }`,
      { p: project.path_with_namespace, id: gid('Ci::Build', job.id) },
    );
    expect(res.body.errors).toBeUndefined();
    const artifacts = res.body.data.project.job;
    expect(artifacts.artifacts).toEqual({ count: 2, nodes: [{ fileType: 'JUNIT', size: String(junit.length) }], pageInfo: { hasNextPage: true } });
    expect(artifacts.all.nodes).toEqual([
      { fileType: 'JUNIT', size: String(junit.length) },
      { fileType: 'ARCHIVE', size: '22' },
    ]);
    const rest = await t.api('GET', `/projects/${project.id}/jobs/${job.id}`);
    expect(rest.body.artifacts).toEqual([
      { file_type: 'junit', size: junit.length, filename: 'junit.xml.gz', file_format: 'gzip' },
      { file_type: 'archive', size: 22, filename: 'artifacts.zip', file_format: 'zip' },
    ]);
  });

  it('has a test report whose suites and cases are connections, and Pipeline.testSuite(buildIds:)', async () => {
    const { project, pipeline, job } = await claimed('rspec:\n  script: echo\n');
    const junit = gzipSync('<testsuite name="s"><testcase classname="A" name="one" time="0.5"/><testcase classname="A" name="two"><failure>bad</failure></testcase><testcase classname="A" name="three"><skipped/></testcase></testsuite>');
    await upload(job, junit, { artifact_type: 'junit', artifact_format: 'gzip' }, 'junit.xml.gz');
    const vars = { p: project.path_with_namespace, id: gid('Ci::Pipeline', pipeline.id), builds: [String(job.id)] };
    const res = await t.graphql(
      `query($p: ID!, $id: ID!, $builds: [ID!]!) { project(fullPath: $p) { pipeline(id: $id) {
        testReportSummary { total { count } testSuites(first: 5) { count nodes { name totalCount failedCount buildIds } } }
        testSuite(buildIds: $builds) { name totalCount testCases(first: 2) { count nodes { name status } pageInfo { hasNextPage endCursor } } }
      } } }`,
      vars,
    );
    expect(res.body.errors).toBeUndefined();
    const p = res.body.data.project.pipeline;
    expect(p.testReportSummary).toEqual({ total: { count: 3 }, testSuites: { count: 1, nodes: [{ name: 'rspec', totalCount: 3, failedCount: 1, buildIds: [String(job.id)] }] } });
    expect(p.testSuite).toMatchObject({ name: 'rspec', totalCount: 3, testCases: { count: 3, nodes: [{ name: 'one', status: 'success' }, { name: 'two', status: 'failed' }], pageInfo: { hasNextPage: true } } });
    const rest = await t.graphql(
      `query($p: ID!, $id: ID!, $builds: [ID!]!, $after: String) { project(fullPath: $p) { pipeline(id: $id) { testSuite(buildIds: $builds) { testCases(after: $after) { nodes { name status } } } } } }`,
      { ...vars, after: p.testSuite.testCases.pageInfo.endCursor },
    );
    expect(rest.body.data.project.pipeline.testSuite.testCases.nodes).toEqual([{ name: 'three', status: 'skipped' }]);
    // Jobs not of the pipeline's latest: no suite.
    const none = await t.graphql(`query($p: ID!, $id: ID!) { project(fullPath: $p) { pipeline(id: $id) { testSuite(buildIds: ["999999999"]) { name } } } }`, vars);
    expect(none.body.data.project.pipeline.testSuite).toBeNull();
    // REST's summary and report keep their arrays.
    const summary = await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}/test_report_summary`);
    expect(summary.body.test_suites).toEqual([expect.objectContaining({ name: 'rspec', total_count: 3, build_ids: [job.id] })]);
    const report = await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}/test_report`);
    expect(report.body.test_suites[0].test_cases.map((c: { status: string }) => c.status)).toEqual(['success', 'failed', 'skipped']);
  });

  it('has trace as GitLab’s CiJobTrace: the last lines as Ansi2html renders them, null without a log', async () => {
    const { project, job } = await claimed('build:\n  script: echo\n');
    const q = `query($p: ID!, $id: JobID!, $n: Int) { project(fullPath: $p) { job(id: $id) { trace { htmlSummary(lastLines: $n) } summary: trace { htmlSummary } } } }`;
    const vars = { p: project.path_with_namespace, id: gid('Ci::Build', job.id) };
    expect((await t.graphql(q, vars)).body.data.project.job).toEqual({ trace: null, summary: null });
    const lines = Array.from({ length: 12 }, (_, i) => `line ${i + 1}\n`).join('') + '\u001b[31;1mred <b>\u001b[0m done\n';
    expect((await patch(job, 0, lines)).status).toBe(202);
    const res = await t.graphql(q, { ...vars, n: 2 });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.project.job.trace.htmlSummary).toBe('<span>line 12<br/></span><span class="term-fg-l-red term-bold">red &lt;b></span><span> done<br/></span>');
    const ten = res.body.data.project.job.summary.htmlSummary as string;
    expect(ten.startsWith('<span>line 4<br/>line 5<br/>')).toBe(true);
    const refused = await t.graphql(q, { ...vars, n: 101 });
    expect(refused.body.errors?.[0].message).toMatch(/lastLines/);
  });

  it('hides a debug-mode job’s log from Guests', async () => {
    const { project, job } = await claimed('variables:\n  CI_DEBUG_TRACE: "true"\nbuild:\n  script: echo\n');
    expect((await patch(job, 0, 'secret\n')).status).toBe(202);
    const guest = await createUser(t);
    await addMember(t, t.rootToken, 'projects', project.id, guest.id, 10);
    const q = `query($p: ID!, $id: JobID!) { project(fullPath: $p) { job(id: $id) { trace { htmlSummary } } } }`;
    const vars = { p: project.path_with_namespace, id: gid('Ci::Build', job.id) };
    expect((await t.graphql(q, vars, guest.token)).body.data.project.job.trace).toBeNull();
    expect((await t.graphql(q, vars)).body.data.project.job.trace.htmlSummary).toContain('secret');
  });
});

describe('Ansi2html', () => {
  it('renders as GitLab’s specs say', () => {
    expect(ansiToHtml('Hello')).toBe('<span>Hello</span>');
    expect(ansiToHtml('Hello \u001b[2Kworld')).toBe('<span>Hello world</span>');
    expect(ansiToHtml('\u001b[31mHello\u001b[0m')).toBe('<span class="term-fg-red">Hello</span>');
    expect(ansiToHtml('\u001b[1;33mHello')).toBe('<span class="term-fg-l-yellow term-bold">Hello</span>');
    expect(ansiToHtml('\u001b[38;5;100mHello')).toBe('<span class="xterm-fg-100">Hello</span>');
    expect(ansiToHtml('\u001b[01mHello')).toBe('<span>Hello</span>');
    expect(ansiToHtml('\u001b[31mHello\nworld')).toBe('<span class="term-fg-red">Hello<br/>world</span>');
    // Not a section name GitLab reads: text, its erase-line sequence dropped.
    expect(ansiToHtml('section_start:1:Prepare step\r\u001b[0K')).toBe('<span>section_start:1:Prepare step\r</span>');
    expect(ansiToHtml('section_start:1:prepare\r\u001b[0Kstep\nrun\nsection_end:2:prepare\r\u001b[0Kafter')).toBe(
      '<div class="section-start" data-timestamp="1" data-section="prepare" role="button"></div>' +
        '<span class="section section-header js-s-prepare">step<br/></span><span class="section line js-s-prepare">run<br/></span>' +
        '<div class="section-end" data-section="prepare"></div><span>after</span>',
    );
  });
});

describe('global IDs in mutation inputs', () => {
  it('takes GroupID, ProjectID and UserID as GitLab does, and refuses a path or a bare number', async () => {
    const owner = await createUser(t);
    const member = await createUser(t);
    const group = await createGroup(t, owner.token);
    const project = await createProject(t, owner.token, { namespaceId: group.id });
    await addMember(t, owner.token, 'groups', group.id, member.id, 20);
    await addMember(t, owner.token, 'projects', project.id, member.id, 20);
    const groupBulk = `mutation($input: GroupMemberBulkUpdateInput!) { groupMemberBulkUpdate(input: $input) { errors groupMembers { accessLevel { integerValue } } } }`;
    const ok = await t.graphql(groupBulk, { input: { groupId: gid('Group', group.id), userIds: [gid('User', member.id)], accessLevel: 'DEVELOPER' } }, owner.token);
    expect(ok.body.data.groupMemberBulkUpdate).toEqual({ errors: [], groupMembers: [{ accessLevel: { integerValue: 30 } }] });
    const byPath = await t.graphql(groupBulk, { input: { groupId: group.full_path, userIds: [gid('User', member.id)], accessLevel: 'GUEST' } }, owner.token);
    expect(byPath.body.errors?.[0].message).toContain('is not a valid Global ID');
    const wrongModel = await t.graphql(groupBulk, { input: { groupId: gid('Project', project.id), userIds: [gid('User', member.id)], accessLevel: 'GUEST' } }, owner.token);
    expect(wrongModel.body.errors?.[0].message).toContain('does not represent an instance of Group');
    const projectBulk = `mutation($input: ProjectMemberBulkUpdateInput!) { projectMemberBulkUpdate(input: $input) { errors projectMembers { accessLevel { integerValue } } } }`;
    const projectOk = await t.graphql(projectBulk, { input: { projectId: gid('Project', project.id), userIds: [gid('User', member.id)], accessLevel: 'MAINTAINER' } }, owner.token);
    expect(projectOk.body.data.projectMemberBulkUpdate).toEqual({ errors: [], projectMembers: [{ accessLevel: { integerValue: 40 } }] });
    const bareUser = await t.graphql(projectBulk, { input: { projectId: gid('Project', project.id), userIds: [String(member.id)], accessLevel: 'GUEST' } }, owner.token);
    expect(bareUser.body.errors?.[0].message).toContain('is not a valid Global ID');

    const create = `mutation($input: RunnerCreateInput!) { runnerCreate(input: $input) { errors runner { runnerType projects { nodes { id } } groups { nodes { id } } } } }`;
    const forGroup = await t.graphql(create, { input: { runnerType: 'GROUP_TYPE', groupId: gid('Group', group.id) } }, owner.token);
    expect(forGroup.body.data.runnerCreate).toEqual({ errors: [], runner: { runnerType: 'GROUP_TYPE', projects: { nodes: [] }, groups: { nodes: [{ id: gid('Group', group.id) }] } } });
    const forProject = await t.graphql(create, { input: { runnerType: 'PROJECT_TYPE', projectId: gid('Project', project.id) } }, owner.token);
    expect(forProject.body.data.runnerCreate.runner.projects.nodes).toEqual([{ id: gid('Project', project.id) }]);
    // REST's numeric ids still work.
    const rest = await t.api('POST', '/user/runners', { token: owner.token, body: { runner_type: 'project_type', project_id: project.id } });
    expect(rest.status).toBe(201);
  });
});

describe('Email.id', () => {
  it('is GitLab’s ID (a numeric string) in GraphQL and a number in REST', async () => {
    const user = await createUser(t);
    const created = await t.api('POST', '/user/emails', { token: user.token, body: { email: `second-${user.id}@example.com` } });
    expect(created.status).toBe(201);
    expect(typeof created.body.id).toBe('number');
    const res = await t.graphql('{ currentUser { emails { nodes { id databaseId email } } } }', {}, user.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.currentUser.emails.nodes).toContainEqual({ id: String(created.body.id), databaseId: created.body.id, email: `second-${user.id}@example.com` });
  });
});

describe('types GitLab gives where REST reads the same field', () => {
  it('Project.namespace is a Namespace, null where the viewer may not read it; REST shows the identity to every reader', async () => {
    const owner = await createUser(t);
    const other = await createUser(t);
    const project = await createProject(t, owner.token, { visibility: 'public' });
    const query = 'query($p: ID!) { project(fullPath: $p) { namespace { __typename fullPath projects { count } } } }';
    const own = await t.graphql(query, { p: project.path_with_namespace }, owner.token);
    expect(own.body.data?.project.namespace).toEqual({ __typename: 'Namespace', fullPath: owner.username, projects: { count: 1 } });
    const seen = await t.graphql(query, { p: project.path_with_namespace }, other.token);
    expect(seen.body).toEqual({ data: { project: { namespace: null } } });
    const rest = await t.api('GET', `/projects/${project.id}`, { token: other.token });
    expect(rest.body.namespace).toMatchObject({ id: expect.any(Number), full_path: owner.username, kind: 'user' });
  });

  it('a commit and its diff: authoredDate as Time with its offset, Diff flags as GitLab’s strings, REST booleans', async () => {
    const owner = await createUser(t);
    const project = await createProject(t, owner.token);
    const first = await t.api('POST', `/projects/${project.id}/repository/commits`, {
      token: owner.token,
      body: { branch: 'main', commit_message: 'one', actions: [{ action: 'create', file_path: 'README.md', content: 'R' }] },
    });
    expect(first.status).toBe(201);
    const made = await t.graphql(
      `mutation($p: ID!) { commitCreate(input: { projectPath: $p, branch: "main", message: "two", actions: [{ action: CREATE, filePath: "a.txt", content: "A" }, { action: DELETE, filePath: "README.md" }] }) {
        errors commitPipelinePath content commit { sha authoredDate } } }`,
      { p: project.path_with_namespace },
      owner.token,
    );
    const payload = made.body.data?.commitCreate;
    expect(made.body.errors).toBeUndefined();
    expect(payload.errors).toEqual([]);
    expect(payload).toMatchObject({ errors: [], content: ['A', ''], commitPipelinePath: `/api/graphql:pipelines/sha/${payload.commit.sha}` });
    expect(payload.commit.authoredDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000[+-]\d\d:\d\d$/);
    const rest = await t.api('GET', `/projects/${project.id}/repository/commits/${payload.commit.sha}/diff`, { token: owner.token });
    expect(rest.body.map((d: { new_path: string; new_file: unknown; deleted_file: unknown; renamed_file: unknown }) => [d.new_path, d.new_file, d.deleted_file, d.renamed_file])).toEqual([
      ['README.md', false, true, false],
      ['a.txt', true, false, false],
    ]);
    const commit = await t.api('GET', `/projects/${project.id}/repository/commits/${payload.commit.sha}`, { token: owner.token });
    expect(commit.body.authored_date).toBe(payload.commit.authoredDate);
  });
});

describe('connections as GitLab’s (Relay) connections', () => {
  it('every connection has edges of a <Name>Edge { cursor: String!, node } whose node is the nodes’ type', async () => {
    const res = await t.graphql(`{ __schema { types { name fields { name type { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } }`, {});
    type Ref = { kind: string; name: string | null; ofType: Ref | null };
    const inner = (r: Ref): string => (r.ofType ? inner(r.ofType) : r.name!);
    const types = new Map((res.body.data.__schema.types as { name: string; fields: { name: string; type: Ref }[] | null }[]).map((x) => [x.name, x]));
    const wrong: string[] = [];
    let connections = 0;
    for (const [name, type] of types) {
      if (!name.endsWith('Connection') || !type.fields) continue;
      connections++;
      const nodes = type.fields.find((f) => f.name === 'nodes');
      const edges = type.fields.find((f) => f.name === 'edges');
      const edgeName = `${name.slice(0, -'Connection'.length)}Edge`;
      if (!edges || edges.type.kind !== 'LIST' || edges.type.ofType?.name !== edgeName) {
        wrong.push(`${name}.edges`);
        continue;
      }
      const edge = types.get(edgeName)?.fields ?? [];
      const cursor = edge.find((f) => f.name === 'cursor');
      const node = edge.find((f) => f.name === 'node');
      if (cursor?.type.kind !== 'NON_NULL' || cursor.type.ofType?.name !== 'String') wrong.push(`${edgeName}.cursor`);
      if (!node || node.type.kind === 'NON_NULL' || !nodes || inner(node.type) !== inner(nodes.type)) wrong.push(`${edgeName}.node`);
    }
    expect(connections).toBeGreaterThan(60);
    expect(wrong).toEqual([]);
  });

  it('edges carry the nodes with the cursors pageInfo gives, and an edge’s cursor continues the list', async () => {
    const owner = await createUser(t);
    const group = await createGroup(t, owner.token);
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await createProject(t, owner.token, { namespaceId: group.id, name: `edge-${i}` }));
    const query = `query($g: ID!, $after: String) { group(fullPath: $g) { projects(first: 2, after: $after) { nodes { id } edges { cursor node { id fullPath } } pageInfo { startCursor endCursor hasNextPage } } } }`;
    const first = await t.graphql(query, { g: group.full_path }, owner.token);
    expect(first.body.errors).toBeUndefined();
    const page = first.body.data.group.projects;
    expect(page.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual(page.nodes.map((n: { id: string }) => n.id));
    const all = (await t.graphql(`query($g: ID!) { group(fullPath: $g) { projects { nodes { fullPath } } } }`, { g: group.full_path }, owner.token)).body.data.group.projects.nodes.map((n: { fullPath: string }) => n.fullPath);
    expect([...all].sort()).toEqual(made.map((p) => p.path_with_namespace).sort());
    expect(page.edges.map((e: { node: { fullPath: string } }) => e.node.fullPath)).toEqual(all.slice(0, 2));
    expect(page.edges[0].cursor).toBe(page.pageInfo.startCursor);
    expect(page.edges[1].cursor).toBe(page.pageInfo.endCursor);
    expect(page.pageInfo.hasNextPage).toBe(true);
    const next = await t.graphql(query, { g: group.full_path, after: page.edges[0].cursor }, owner.token);
    expect(next.body.data.group.projects.edges.map((e: { node: { fullPath: string } }) => e.node.fullPath)).toEqual(all.slice(1, 3));
  });

  it('pages backwards with last and before, as GitLab’s connections do', async () => {
    const owner = await createUser(t);
    const group = await createGroup(t, owner.token);
    for (let i = 0; i < 4; i++) await createProject(t, owner.token, { namespaceId: group.id, name: `back-${i}` });
    const names = async (args: string, variables: Record<string, unknown> = {}) => {
      const res = await t.graphql(
        `query($g: ID!${args.includes('$before') ? ', $before: String' : ''}) { group(fullPath: $g) { projects(${args}) { nodes { name } pageInfo { hasNextPage hasPreviousPage startCursor } } } }`,
        { g: group.full_path, ...variables },
        owner.token,
      );
      expect(res.body.errors).toBeUndefined();
      return res.body.data.group.projects;
    };
    const all = (await names('first: 10')).nodes.map((n: { name: string }) => n.name);
    expect(all).toHaveLength(4);
    const tail = await names('last: 2');
    expect(tail.nodes.map((n: { name: string }) => n.name)).toEqual(all.slice(2));
    expect(tail.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    const previous = await names('last: 2, before: $before', { before: tail.pageInfo.startCursor });
    expect(previous.nodes.map((n: { name: string }) => n.name)).toEqual(all.slice(0, 2));
    expect(previous.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const bad = await t.graphql(`query($g: ID!) { group(fullPath: $g) { projects(last: -1) { nodes { name } } } }`, { g: group.full_path }, owner.token);
    expect(bad.body.errors?.[0].message).toMatch(/last/);
  });

  it('a list given whole (a pipeline’s stages and their jobs) has edges too', async () => {
    const { project, pipeline } = await claimed('build:\n  stage: build\n  script: echo\ntest:\n  stage: test\n  script: echo\n');
    const res = await t.graphql(
      `query($p: ID!, $iid: ID!) { project(fullPath: $p) { pipeline(iid: $iid) { stages { edges { cursor node { name jobs { edges { node { name } } } } } } } } }`,
      { p: project.path_with_namespace, iid: String((pipeline as { iid?: number }).iid) },
    );
    expect(res.body.errors).toBeUndefined();
    const edges = res.body.data.project.pipeline.stages.edges;
    expect(edges.map((e: { node: { name: string } }) => e.node.name)).toEqual(['build', 'test']);
    expect(edges[1].node.jobs.edges).toEqual([{ node: { name: 'test' } }]);
    expect(new Set(edges.map((e: { cursor: string }) => e.cursor)).size).toBe(2);
  });
});
