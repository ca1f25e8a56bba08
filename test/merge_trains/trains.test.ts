/**
 * Merge trains (GitLab Premium): merge requests on a target branch's train each get a pipeline on
 * refs/merge-requests/<iid>/train (the target merged with every car ahead and the merge request), with
 * CI_MERGE_REQUEST_EVENT_TYPE=merge_train; the first car whose pipeline succeeds merges by fast-forwarding the target
 * to its train ref's commit, the next cars follow; a car whose pipeline fails leaves the train with a note and the cars
 * behind it get new pipelines. Jobs are taken and finished through the runner protocol, so each step is the test's.
 */
import { join } from 'node:path';
import { Gitlab } from '@gitbeaker/rest';
import { describe, expect, it } from 'vitest';
import { addMember, createProject, createUser } from '../support/factories.js';
import { cloneUrl, gitSandbox } from '../support/git.js';
import { suiteServer } from '../support/server.js';
import { commit, createRunner, eventually, pushPipeline, requestJob, runnerCall, RUNNER_INFO } from '../runners/support.js';

const t = suiteServer({ ciLongPollingMs: 0 });
const sandbox = gitSandbox();

// A merged results job makes each merge request's head pipeline; the train job runs only on train pipelines; a
// branch's push pipeline waits on a manual job (the test awaits it: the push is handled before its merge request exists).
const CONFIG = `branch:
  rules:
    - if: $CI_PIPELINE_SOURCE == "push" && $CI_COMMIT_BRANCH != "main"
      when: manual
  script: echo branch
check:
  rules:
    - if: $CI_MERGE_REQUEST_EVENT_TYPE == "merged_result"
  script: echo check
train:
  rules:
    - if: $CI_MERGE_REQUEST_EVENT_TYPE == "merge_train"
  script: echo "$CI_MERGE_REQUEST_EVENT_TYPE"
`;

interface Train {
  project: { id: number; path_with_namespace: string };
  runnerToken: string;
}

interface Job {
  id: number;
  token: string;
  git_info: { ref: string; sha: string };
  variables: { key: string; value: string }[];
}

const variablesOf = (job: Job) => Object.fromEntries(job.variables.map((v) => [v.key, v.value]));

async function trainProject(): Promise<Train> {
  const project = await createProject(t, t.rootToken);
  await commit(t, project.id, { '.gitlab-ci.yml': CONFIG, 'base.txt': 'base\n' });
  const put = await t.api('PUT', `/projects/${project.id}`, { body: { merge_pipelines_enabled: true, merge_trains_enabled: true } });
  expect(put.status, put.text).toBe(200);
  expect(put.body).toMatchObject({ merge_pipelines_enabled: true, merge_trains_enabled: true, merge_trains_skip_train_allowed: false });
  const { token } = await createRunner(t, { runner_type: 'project_type', project_id: project.id });
  return { project, runnerToken: token };
}

async function mrOf(train: Train, iid: number) {
  return (await t.api('GET', `/projects/${train.project.id}/merge_requests/${iid}`)).body;
}

async function finish(train: Train, job: Job, state: 'success' | 'failed'): Promise<void> {
  const res = await runnerCall(t, 'PUT', `/jobs/${job.id}`, { token: job.token, info: RUNNER_INFO, state });
  expect(res.status, res.text).toBe(200);
}

/** A merge request from a new branch changing `file`, and the job of its merged results pipeline (pending). */
async function openMr(train: Train, branch: string, file: string): Promise<{ iid: number; job: Job }> {
  const id = train.project.id;
  const created = await t.api('POST', `/projects/${id}/repository/commits`, { body: { branch, start_branch: 'main', commit_message: `Add ${file}`, actions: [{ action: 'create', file_path: file, content: `${branch}\n` }] } });
  expect(created.status, created.text).toBe(201);
  await pushPipeline(t, id, created.body.id);
  const res = await t.api('POST', `/projects/${id}/merge_requests`, { body: { source_branch: branch, target_branch: 'main', title: `Add ${file}` } });
  expect(res.status, res.text).toBe(201);
  const iid = res.body.iid as number;
  const job: Job = await requestJob(t, train.runnerToken);
  expect(job.git_info.ref).toBe(`refs/merge-requests/${iid}/merge`);
  return { iid, job };
}

/** A merge request from a new branch changing `file`, whose merged results pipeline has succeeded. */
async function readyMr(train: Train, branch: string, file: string): Promise<number> {
  const { iid, job } = await openMr(train, branch, file);
  await finish(train, job, 'success');
  await eventually(async () => (await mrOf(train, iid)).head_pipeline?.status === 'success');
  return iid;
}

/** The next train jobs handed to the runner, by merge request iid. */
async function trainJobs(train: Train, count: number): Promise<Map<number, Job>> {
  const jobs = new Map<number, Job>();
  while (jobs.size < count) {
    const job: Job = await requestJob(t, train.runnerToken);
    const match = /^refs\/merge-requests\/(\d+)\/train$/.exec(job.git_info.ref);
    expect(match, job.git_info.ref).not.toBeNull();
    jobs.set(Number(match![1]), job);
  }
  return jobs;
}

const parentsOf = async (train: Train, sha: string): Promise<string[]> => (await t.api('GET', `/projects/${train.project.id}/repository/commits/${sha}`)).body.parent_ids;
const mainHead = async (train: Train): Promise<string> => (await t.api('GET', `/projects/${train.project.id}/repository/branches/main`)).body.commit.id;

describe('merge trains', () => {
  it('runs a pipeline per car on the train ahead of it, and merges the cars in order when both pass', async () => {
    const train = await trainProject();
    const id = train.project.id;
    const first = await readyMr(train, 'alpha', 'alpha.txt');
    const second = await readyMr(train, 'beta', 'beta.txt');
    const base = await mainHead(train);

    const added = await t.api('POST', `/projects/${id}/merge_trains/merge_requests/${first}`);
    expect(added.status, added.text).toBe(201);
    expect(added.body).toHaveLength(1);
    expect(Object.keys(added.body[0]).sort()).toEqual(['created_at', 'duration', 'id', 'merge_request', 'merged_at', 'pipeline', 'status', 'target_branch', 'updated_at', 'user']);
    expect(added.body[0]).toMatchObject({ target_branch: 'main', status: 'idle', merged_at: null, duration: null, merge_request: { iid: first, state: 'opened', project_id: id } });
    expect(Object.keys(added.body[0].merge_request).sort()).toEqual(['created_at', 'description', 'id', 'iid', 'project_id', 'state', 'title', 'updated_at', 'web_url']);
    // Asking again: it is already set to auto-merge (on the train).
    expect((await t.api('POST', `/projects/${id}/merge_trains/merge_requests/${first}`)).status).toBe(409);
    // The deprecated merge_when_pipeline_succeeds of the merge API puts it on the train where trains run.
    const merge = await t.api('PUT', `/projects/${id}/merge_requests/${second}/merge`, { body: { merge_when_pipeline_succeeds: true } });
    expect(merge.status, merge.text).toBe(200);
    expect(merge.body).toMatchObject({ state: 'opened', merge_when_pipeline_succeeds: true });

    const jobs = await trainJobs(train, 2);
    const [one, two] = [jobs.get(first)!, jobs.get(second)!];
    expect(variablesOf(one)).toMatchObject({ CI_PIPELINE_SOURCE: 'merge_request_event', CI_MERGE_REQUEST_EVENT_TYPE: 'merge_train', CI_MERGE_REQUEST_IID: String(first) });
    expect(variablesOf(two)).toMatchObject({ CI_MERGE_REQUEST_EVENT_TYPE: 'merge_train', CI_MERGE_REQUEST_TARGET_BRANCH_SHA: one.git_info.sha });
    // The first car's train ref merges its source into main; the second's into the first's.
    const alphaHead = (await mrOf(train, first)).sha;
    expect(await parentsOf(train, one.git_info.sha)).toEqual([base, alphaHead]);
    expect((await parentsOf(train, two.git_info.sha))[0]).toBe(one.git_info.sha);

    const listed = await t.api('GET', `/projects/${id}/merge_trains?sort=asc`);
    expect(listed.status).toBe(200);
    expect(listed.headers.get('x-total')).toBe('2');
    expect(listed.body.map((c: { merge_request: { iid: number }; status: string; pipeline: { sha: string; ref: string } }) => [c.merge_request.iid, c.status, c.pipeline.sha])).toEqual([
      [first, 'fresh', one.git_info.sha],
      [second, 'fresh', two.git_info.sha],
    ]);
    const byBranch = await t.api('GET', `/projects/${id}/merge_trains/main?scope=active`);
    expect(byBranch.body).toHaveLength(2);
    const car = await t.api('GET', `/projects/${id}/merge_trains/merge_requests/${second}`);
    expect(car.status).toBe(200);
    expect(car.body).toMatchObject({ merge_request: { iid: second }, pipeline: { ref: `refs/merge-requests/${second}/train`, source: 'merge_request_event' } });

    const gql = await t.graphql(
      `query($path: ID!) { project(fullPath: $path) { ciCdSettings { mergeTrainsEnabled mergeTrainsSkipTrainAllowed }
        mergeTrains { count nodes { targetBranch cars { count nodes { index status mergeRequest { iid } pipeline { mergeRequestEventType } userPermissions { deleteCar } } } } } } }`,
      { path: train.project.path_with_namespace },
    );
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.project.ciCdSettings).toEqual({ mergeTrainsEnabled: true, mergeTrainsSkipTrainAllowed: false });
    expect(gql.body.data.project.mergeTrains).toEqual({
      count: 1,
      nodes: [{ targetBranch: 'main', cars: { count: 2, nodes: [first, second].map((iid, index) => ({ index, status: 'FRESH', mergeRequest: { iid: String(iid) }, pipeline: { mergeRequestEventType: 'MERGE_TRAIN' }, userPermissions: { deleteCar: true } })) } }],
    });

    // The second car's pipeline passes first: it waits for the car ahead, then both merge in order.
    await finish(train, two, 'success');
    await finish(train, one, 'success');
    await eventually(async () => (await mrOf(train, second)).state === 'merged');
    expect((await mrOf(train, first)).state).toBe('merged');
    expect(await mainHead(train)).toBe(two.git_info.sha);
    expect((await mrOf(train, second)).merge_commit_sha).toBe(two.git_info.sha);

    const complete = await t.api('GET', `/projects/${id}/merge_trains?scope=complete`);
    expect(complete.body.map((c: { merge_request: { iid: number }; status: string }) => [c.merge_request.iid, c.status])).toEqual([
      [second, 'merged'],
      [first, 'merged'],
    ]);
    expect(complete.body[0].merged_at).not.toBeNull();
    expect(typeof complete.body[0].duration).toBe('number');
    expect((await t.api('GET', `/projects/${id}/merge_trains?scope=active`)).body).toEqual([]);

    // A fresh clone's history: main's first parents are the train's merges, in order.
    const dir = join(sandbox.folder(), 'clone');
    await sandbox.ok(join(dir, '..'), ['clone', '--quiet', cloneUrl(t.url, train.project.path_with_namespace, t.rootToken), 'clone']);
    const log = (await sandbox.ok(dir, ['log', '--first-parent', '--format=%H %s', 'main'])).trim().split('\n');
    expect(log.slice(0, 3)).toEqual([`${two.git_info.sha} Merge branch 'beta' into 'main'`, `${one.git_info.sha} Merge branch 'alpha' into 'main'`, `${base} CI`]);
    const files = (await sandbox.ok(dir, ['ls-files'])).trim().split('\n');
    expect(files).toEqual(expect.arrayContaining(['alpha.txt', 'beta.txt', 'base.txt']));
  });

  it('drops a car whose pipeline fails, with a note, and gives the car behind it a new pipeline on main', async () => {
    const train = await trainProject();
    const id = train.project.id;
    const failing = await readyMr(train, 'broken', 'broken.txt');
    const next = await readyMr(train, 'fine', 'fine.txt');
    const base = await mainHead(train);
    // GraphQL's mergeRequestAccept with the MERGE_TRAIN strategy boards too.
    for (const iid of [failing, next]) {
      const res = await t.graphql(`mutation($path: ID!, $iid: String!) { mergeRequestAccept(input: { projectPath: $path, iid: $iid, strategy: MERGE_TRAIN }) { errors mergeRequest { state autoMergeEnabled autoMergeStrategy } } }`, {
        path: train.project.path_with_namespace,
        iid: String(iid),
      });
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.mergeRequestAccept).toMatchObject({ errors: [], mergeRequest: { state: 'opened', autoMergeEnabled: true } });
    }
    const jobs = await trainJobs(train, 2);
    const stale = jobs.get(next)!;
    await finish(train, jobs.get(failing)!, 'failed');

    // The car behind is rebuilt on main alone, and its old pipeline canceled.
    const [rebuilt] = [...(await trainJobs(train, 1)).values()];
    expect(rebuilt.git_info.ref).toBe(`refs/merge-requests/${next}/train`);
    expect(rebuilt.git_info.sha).not.toBe(stale.git_info.sha);
    expect((await parentsOf(train, rebuilt.git_info.sha))[0]).toBe(base);
    expect(variablesOf(rebuilt).CI_MERGE_REQUEST_TARGET_BRANCH_SHA).toBe(base);
    const old = await t.api('GET', `/projects/${id}/pipelines?sha=${stale.git_info.sha}`);
    expect(old.body[0].status).toBe('canceled');

    expect((await t.api('GET', `/projects/${id}/merge_trains/merge_requests/${failing}`)).status).toBe(404);
    const dropped = await mrOf(train, failing);
    expect(dropped).toMatchObject({ state: 'opened', merge_when_pipeline_succeeds: false });
    const notes = await t.api('GET', `/projects/${id}/merge_requests/${failing}/notes?sort=asc`);
    expect(notes.body.map((n: { body: string }) => n.body)).toEqual(['started a merge train', 'removed this merge request from the merge train because the pipeline did not succeed']);

    await finish(train, rebuilt, 'success');
    await eventually(async () => (await mrOf(train, next)).state === 'merged');
    expect(await mainHead(train)).toBe(rebuilt.git_info.sha);
    expect((await mrOf(train, failing)).state).toBe('opened');
  });

  it('boards a merge request once its running pipeline succeeds (when_pipeline_succeeds: 202), and merges it', async () => {
    const train = await trainProject();
    const id = train.project.id;
    const { iid, job } = await openMr(train, 'delta', 'delta.txt');
    // Its pipeline still runs: boarding now is not available.
    expect((await t.api('POST', `/projects/${id}/merge_trains/merge_requests/${iid}`)).body).toEqual({ message: 'Failed to merge' });
    // @gitbeaker/rest's MergeTrains: boarding once the pipeline succeeds (202), then the car's status and the train.
    const api = new Gitlab({ host: t.url, token: t.rootToken });
    const later = await api.MergeTrains.addMergeRequest(id, iid, { whenPipelineSucceeds: true, showExpanded: true });
    expect(later.status).toBe(202);
    expect(later.data).toEqual([]);
    expect(await mrOf(train, iid)).toMatchObject({ merge_when_pipeline_succeeds: true });
    expect((await t.api('GET', `/projects/${id}/merge_trains/merge_requests/${iid}`)).status).toBe(404);

    await finish(train, job, 'success');
    const [trainJob] = [...(await trainJobs(train, 1)).values()];
    expect(trainJob.git_info.ref).toBe(`refs/merge-requests/${iid}/train`);
    const car = await t.api('GET', `/projects/${id}/merge_trains/merge_requests/${iid}`);
    expect(car.body).toMatchObject({ status: 'fresh', pipeline: { sha: trainJob.git_info.sha } });
    expect(await api.MergeTrains.showStatus(id, iid)).toMatchObject({ status: 'fresh', target_branch: 'main', merge_request: { iid } });
    await finish(train, trainJob, 'success');
    await eventually(async () => (await mrOf(train, iid)).state === 'merged');
    const completed = await api.MergeTrains.all(id, { targetBranch: 'main', scope: 'complete' });
    expect(completed.map((c) => [c.merge_request.iid, c.status, c.pipeline.sha])).toEqual([[iid, 'merged', trainJob.git_info.sha]]);
    expect(await api.MergeTrains.all(id, { targetBranch: 'other', scope: 'complete' })).toEqual([]);
    const notes = await t.api('GET', `/projects/${id}/merge_requests/${iid}/notes?sort=asc`);
    const head = (await mrOf(train, iid)).sha;
    expect(notes.body.map((n: { body: string }) => n.body).slice(0, 2)).toEqual([`enabled automatic add to merge train when the pipeline for ${head} succeeds`, 'started a merge train']);
  });

  it('squashes on the train ref when asked, and keeps the squash commit as the merge request merged', async () => {
    const train = await trainProject();
    const id = train.project.id;
    const iid = await readyMr(train, 'zeta', 'zeta.txt');
    await commit(t, id, { 'zeta2.txt': 'two\n' }, 'zeta');
    // The new head's merged results pipeline, succeeded, before boarding.
    const job: Job = await requestJob(t, train.runnerToken);
    await finish(train, job, 'success');
    const head = await eventually(async () => {
      const mr = await mrOf(train, iid);
      return mr.head_pipeline?.status === 'success' && mr.head_pipeline.sha === job.git_info.sha && mr.sha;
    });
    const base = await mainHead(train);
    const added = await t.api('POST', `/projects/${id}/merge_trains/merge_requests/${iid}`, { body: { squash: true, sha: head } });
    expect(added.status, added.text).toBe(201);
    const [trainJob] = [...(await trainJobs(train, 1)).values()];
    const [first, squashed] = await parentsOf(train, trainJob.git_info.sha);
    expect(first).toBe(base);
    expect(squashed).not.toBe(head);
    expect(await parentsOf(train, squashed)).toEqual([base]);
    await finish(train, trainJob, 'success');
    await eventually(async () => (await mrOf(train, iid)).state === 'merged');
    expect(await mrOf(train, iid)).toMatchObject({ squash: true, squash_commit_sha: squashed, merge_commit_sha: trainJob.git_info.sha });
  });

  it('takes a merge request off the train when its source branch is pushed to, canceling its train pipeline', async () => {
    const train = await trainProject();
    const id = train.project.id;
    const iid = await readyMr(train, 'epsilon', 'epsilon.txt');
    expect((await t.api('POST', `/projects/${id}/merge_trains/merge_requests/${iid}`)).status).toBe(201);
    const car = await eventually(async () => (await t.api('GET', `/projects/${id}/merge_trains/merge_requests/${iid}`)).body.pipeline);
    await commit(t, id, { 'epsilon.txt': 'changed\n' }, 'epsilon');
    await eventually(async () => (await t.api('GET', `/projects/${id}/merge_trains/merge_requests/${iid}`)).status === 404);
    // Canceled once the car is gone, by the same background job.
    await eventually(async () => (await t.api('GET', `/projects/${id}/pipelines/${car.id}`)).body.status === 'canceled');
    const notes = await t.api('GET', `/projects/${id}/merge_requests/${iid}/notes?sort=asc`);
    expect(notes.body.map((n: { body: string }) => n.body)).toEqual(['started a merge train', 'removed this merge request from the merge train because source branch was updated']);
    expect(await mrOf(train, iid)).toMatchObject({ state: 'opened', merge_when_pipeline_succeeds: false });
  });

  it('takes a closed merge request off the train at once, restarts the car behind, which merges removing its source branch', async () => {
    const train = await trainProject();
    const id = train.project.id;
    const closing = await readyMr(train, 'closing', 'closing.txt');
    const behind = await readyMr(train, 'behind', 'behind.txt');
    const base = await mainHead(train);
    expect((await t.api('POST', `/projects/${id}/merge_trains/merge_requests/${closing}`)).status).toBe(201);
    // REST's merge with merge_when_pipeline_succeeds boards a trains project's train; should_remove_source_branch is kept for the train's merge.
    const boarded = await t.api('PUT', `/projects/${id}/merge_requests/${behind}/merge`, { body: { merge_when_pipeline_succeeds: true, should_remove_source_branch: true } });
    expect(boarded.status, boarded.text).toBe(200);
    const jobs = await trainJobs(train, 2);
    const stale = jobs.get(behind)!;

    const closed = await t.api('PUT', `/projects/${id}/merge_requests/${closing}`, { body: { state_event: 'close' } });
    expect(closed.status, closed.text).toBe(200);
    expect(closed.body).toMatchObject({ state: 'closed', merge_when_pipeline_succeeds: false });
    // Off the train as the close answers, not on the train's next pass.
    expect((await t.api('GET', `/projects/${id}/merge_trains/merge_requests/${closing}`)).status).toBe(404);
    const notes = await t.api('GET', `/projects/${id}/merge_requests/${closing}/notes?sort=asc`);
    expect(notes.body.map((n: { body: string }) => n.body)).toEqual(['started a merge train', 'removed this merge request from the merge train because merge request was closed']);
    await eventually(async () => (await t.api('GET', `/projects/${id}/pipelines?sha=${jobs.get(closing)!.git_info.sha}`)).body[0].status === 'canceled');

    // The car behind runs again on main alone.
    const [rebuilt] = [...(await trainJobs(train, 1)).values()];
    expect(rebuilt.git_info.ref).toBe(`refs/merge-requests/${behind}/train`);
    expect(rebuilt.git_info.sha).not.toBe(stale.git_info.sha);
    expect((await parentsOf(train, rebuilt.git_info.sha))[0]).toBe(base);
    await finish(train, rebuilt, 'success');
    await eventually(async () => (await mrOf(train, behind)).state === 'merged');
    expect(await mainHead(train)).toBe(rebuilt.git_info.sha);
    expect((await t.api('GET', `/projects/${id}/repository/branches/behind`)).status).toBe(404);
    expect((await t.api('GET', `/projects/${id}/repository/branches/closing`)).status).toBe(200);
  });

  it('takes a merge request closed by the /close quick action off the train, as any close does', async () => {
    const train = await trainProject();
    const id = train.project.id;
    const iid = await readyMr(train, 'quick', 'quick.txt');
    expect((await t.api('POST', `/projects/${id}/merge_trains/merge_requests/${iid}`)).status).toBe(201);
    const [job] = [...(await trainJobs(train, 1)).values()];
    const closed = await t.api('POST', `/projects/${id}/merge_requests/${iid}/notes`, { body: { body: '/close' } });
    expect(closed.status, closed.text).toBe(202);
    expect(closed.body.summary).toEqual(['Closed this merge request.']);
    expect(await mrOf(train, iid)).toMatchObject({ state: 'closed', merge_when_pipeline_succeeds: false });
    expect((await t.api('GET', `/projects/${id}/merge_trains/merge_requests/${iid}`)).status).toBe(404);
    const notes = await t.api('GET', `/projects/${id}/merge_requests/${iid}/notes?sort=asc`);
    expect(notes.body.map((n: { body: string }) => n.body)).toEqual(['started a merge train', 'removed this merge request from the merge train because merge request was closed']);
    await eventually(async () => (await t.api('GET', `/projects/${id}/pipelines?sha=${job.git_info.sha}`)).body[0].status === 'canceled');
  });

  it('merges around the train with skip_merge_train where allowed, keeping the cars’ pipelines, which then merge onto it', async () => {
    const train = await trainProject();
    const id = train.project.id;
    const onTrain = await readyMr(train, 'riding', 'riding.txt');
    const urgent = await readyMr(train, 'urgent', 'urgent.txt');
    const base = await mainHead(train);
    expect((await t.api('POST', `/projects/${id}/merge_trains/merge_requests/${onTrain}`)).status).toBe(201);
    const [riding] = [...(await trainJobs(train, 1)).values()];
    expect((await parentsOf(train, riding.git_info.sha))[0]).toBe(base);

    // Skipping the train is the project's choice (merge_trains_skip_train_allowed): merged now, a skip_merged car recorded.
    const put = await t.api('PUT', `/projects/${id}`, { body: { merge_trains_skip_train_allowed: true } });
    expect(put.body.merge_trains_skip_train_allowed).toBe(true);
    const merged = await t.api('PUT', `/projects/${id}/merge_requests/${urgent}/merge`, { body: { skip_merge_train: true } });
    expect(merged.status, merged.text).toBe(200);
    expect(merged.body.state).toBe('merged');
    const skippedHead = await mainHead(train);
    expect(merged.body.merge_commit_sha).toBe(skippedHead);
    const complete = await t.api('GET', `/projects/${id}/merge_trains?scope=complete`);
    expect(complete.body.map((c: { merge_request: { iid: number }; status: string }) => [c.merge_request.iid, c.status])).toEqual([[urgent, 'skip_merged']]);

    // The car keeps its pipeline (no new one, none canceled) and merges onto main as it is now, the skipped merge included.
    await finish(train, riding, 'success');
    await eventually(async () => (await mrOf(train, onTrain)).state === 'merged');
    const head = await mainHead(train);
    expect(await parentsOf(train, head)).toEqual([skippedHead, (await mrOf(train, onTrain)).sha]);
    expect((await mrOf(train, onTrain)).merge_commit_sha).toBe(head);
    const trainPipelines = await t.api('GET', `/projects/${id}/pipelines?ref=refs/merge-requests/${onTrain}/train`);
    expect(trainPipelines.body.map((p: { status: string }) => p.status)).toEqual(['success']);
    const tree = await t.api('GET', `/projects/${id}/repository/tree?ref=main`);
    expect(tree.body.map((f: { name: string }) => f.name)).toEqual(expect.arrayContaining(['riding.txt', 'urgent.txt']));
  });

  it('lets the car user or a Maintainer take a car off, and shows trains to Developers only', async () => {
    const train = await trainProject();
    const id = train.project.id;
    const iid = await readyMr(train, 'gamma', 'gamma.txt');
    const developer = await createUser(t);
    const reporter = await createUser(t);
    await addMember(t, t.rootToken, 'projects', id, developer.id, 30);
    await addMember(t, t.rootToken, 'projects', id, reporter.id, 20);

    expect((await t.api('GET', `/projects/${id}/merge_trains`, { token: null })).status).toBe(401);
    expect((await t.api('GET', `/projects/${id}/merge_trains`, { token: reporter.token })).status).toBe(403);
    const outsider = await createUser(t);
    expect((await t.api('GET', `/projects/${id}/merge_trains`, { token: outsider.token })).body).toEqual({ message: '404 Project Not Found' });
    expect((await t.api('GET', `/projects/${id}/merge_trains`, { token: developer.token })).status).toBe(200);
    // Not on a train yet.
    expect((await t.api('GET', `/projects/${id}/merge_trains/merge_requests/${iid}`)).body).toEqual({ message: '404 Merge Train Not Found' });
    // A Developer may not merge into the protected main.
    expect((await t.api('POST', `/projects/${id}/merge_trains/merge_requests/${iid}`, { token: developer.token })).status).toBe(403);

    const added = await t.api('POST', `/projects/${id}/merge_trains/merge_requests/${iid}`);
    expect(added.status, added.text).toBe(201);
    const carId = `gid://gitlab/MergeTrains::Car/${added.body[0].id}`;
    const DELETE = `mutation($id: MergeTrainsCarID!) { mergeTrainsDeleteCar(input: { carId: $id }) { errors } }`;
    const refused = await t.graphql(DELETE, { id: carId }, developer.token);
    expect(refused.body.errors?.[0]?.message).toBe("The resource that you are attempting to access does not exist or you don't have permission to perform this action");
    const removed = await t.graphql(DELETE, { id: carId });
    expect(removed.body.errors).toBeUndefined();
    expect(removed.body.data.mergeTrainsDeleteCar).toEqual({ errors: [] });
    expect((await t.api('GET', `/projects/${id}/merge_trains/merge_requests/${iid}`)).status).toBe(404);
    expect((await mrOf(train, iid)).merge_when_pipeline_succeeds).toBe(false);

    // Trains off: 400 with GitLab's words; merge trains need merged results pipelines to be in effect.
    await t.api('PUT', `/projects/${id}`, { body: { merge_pipelines_enabled: false } });
    expect((await t.api('GET', `/projects/${id}`)).body).toMatchObject({ merge_trains_enabled: false });
    expect((await t.api('POST', `/projects/${id}/merge_trains/merge_requests/${iid}`)).body).toEqual({ message: 'Merge trains are not enabled for this project' });
    const settings = await t.graphql(
      `mutation($path: ID!) { projectCiCdSettingsUpdate(input: { fullPath: $path, mergePipelinesEnabled: true, mergeTrainsEnabled: false }) { errors ciCdSettings { mergePipelinesEnabled mergeTrainsEnabled } } }`,
      { path: train.project.path_with_namespace },
    );
    expect(settings.body.data.projectCiCdSettingsUpdate).toEqual({ errors: [], ciCdSettings: { mergePipelinesEnabled: true, mergeTrainsEnabled: false } });
  });
});
