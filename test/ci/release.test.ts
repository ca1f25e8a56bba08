/**
 * `release:` end to end: validation with GitLab 16's Entry::Release messages, the payload's release step (GitLab
 * 16's release-cli command) through the raw runner protocol, and the built-in shell runner's release-cli creating
 * the release through the Releases API with the job token (a description read from a file, a milestone, an asset
 * link), and failing the job on an API error.
 */
import { describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { commit, createRunner, jobLog, projectWithConfig, pushPipeline, requestJob, settledJobs, withShellRunner } from '../runners/support.js';

const t = suiteServer({ ciLongPollingMs: 2000 });
withShellRunner(t);

const settled = (projectId: number, pipelineId: number) => settledJobs(t, projectId, pipelineId);
const log = async (projectId: number, jobId: number) => (await jobLog(t, projectId, jobId)).replace(/\x1b\[[0-9;]*m/g, '');
const lint = async (projectId: number, content: string) => (await t.api('POST', `/projects/${projectId}/ci/lint`, { body: { content } })).body;

describe('release:', () => {
  it('is validated with GitLab messages', async () => {
    const { project } = await projectWithConfig(t, 'job:\n  script: echo\n');
    const bad = async (release: string) => (await lint(project.id, `job:\n  script: echo\n  release:\n${release}`)).errors;
    expect(await bad('    tag_name: v1\n')).toEqual(["jobs:job:release description can't be blank"]);
    expect(await bad('    description: d\n')).toEqual(["jobs:job:release tag name can't be blank"]);
    expect(await bad('    tag_name: v1\n    description: 10\n')).toEqual(['jobs:job:release description should be a string']);
    expect(await bad('    tag_name: v1\n    description: d\n    test: 100\n')).toEqual(['jobs:job:release config contains unknown keys: test']);
    expect(await bad('    tag_name: v1\n    description: d\n    released_at: ABC123\n')).toEqual(['jobs:job:release released at must be a valid datetime']);
    expect(await bad('    tag_name: v1\n    description: d\n    ref: invalid\\branch\n')).toEqual(['jobs:job:release ref must be a valid ref']);
    expect(await bad('    tag_name: v1\n    description: d\n    milestones: [1, 2, 3]\n')).toEqual(['jobs:job:release milestones should be an array of strings or a string']);
    expect(await bad('    tag_name: v1\n    description: d\n    tag_message: 100\n')).toEqual(['jobs:job:release tag message should be a string']);
    expect(await bad('    tag_name: v1\n    description: d\n    assets:\n      files: [a]\n')).toEqual([
      'jobs:job:release:assets config contains unknown keys: files',
      "jobs:job:release:assets links can't be blank",
    ]);
    expect(await bad('    tag_name: v1\n    description: d\n    assets:\n      links: x\n')).toEqual([
      'jobs:job:release:assets links should be an array of hashes',
      'jobs:job:release:assets:links config should be a array',
    ]);
    expect(await bad('    - v1\n')).toEqual(['jobs:job:release config should be a hash']);
    const good = `job:\n  script: echo\n  release:\n    tag_name: v1\n    description: ./CHANGELOG.md\n    ref: b3235930\n    released_at: '2019-03-15T08:00:00Z'\n    milestones: m1\n    tag_message: null\n    assets:\n      links:\n        - name: a\n          url: https://example.com/a\n`;
    expect((await lint(project.id, good)).valid).toBe(true);
  });

  it('goes to runners as a release step after the script, with GitLab 16 release-cli command', async () => {
    const { token } = await createRunner(t, { runner_type: 'instance_type', tag_list: ['raw-release'], run_untagged: false });
    await projectWithConfig(
      t,
      `job:
  tags: [raw-release]
  script: echo hi
  after_script: [echo bye]
  release:
    description: 'Notes <b> & "more"'
    tag_name: $CI_COMMIT_SHA
    name: Release $CI_COMMIT_SHORT_SHA
    ref: main
    released_at: '2019-03-15T08:00:00Z'
    tag_message: Annotated
    milestones: [m1, m2]
    assets:
      links:
        - name: cool-app.zip
          url: https://example.com/app.zip?a=1&b=2
          link_type: package
          filepath: /bin/app
`,
    );
    const job = await requestJob(t, token);
    const timeout = job.runner_info.timeout;
    expect(job.steps).toEqual([
      { name: 'script', script: ['echo hi'], timeout, when: 'on_success', allow_failure: false },
      {
        name: 'release',
        script: [
          'release-cli create --name "Release $CI_COMMIT_SHORT_SHA" --description "Notes <b> & "more"" --tag-name "$CI_COMMIT_SHA" --tag-message "Annotated" --ref "main" --released-at "2019-03-15T08:00:00Z" --milestone "m1" --milestone "m2" --assets-link "{\\"name\\":\\"cool-app.zip\\",\\"url\\":\\"https://example.com/app.zip?a=1\\\\u0026b=2\\",\\"link_type\\":\\"package\\",\\"filepath\\":\\"/bin/app\\"}"',
        ],
        timeout,
        when: 'on_success',
        allow_failure: false,
      },
      { name: 'after_script', script: ['echo bye'], timeout, when: 'always', allow_failure: true },
    ]);
  });

  it('is created by the built-in runner through the Releases API with the job token; an API error fails the job', async () => {
    const config = `release:
  script: echo "releasing"
  release:
    tag_name: v2.0.0
    ref: $CI_COMMIT_SHA
    name: Release $CI_COMMIT_SHORT_SHA
    description: ./CHANGELOG.md
    milestones: [M1]
    assets:
      links:
        - name: app.zip
          url: https://example.com/app.zip
          link_type: package
`;
    const { project, sha } = await projectWithConfig(t, config, { files: { 'CHANGELOG.md': '## 2.0.0\n\nEverything.\n' } });
    await t.api('POST', `/projects/${project.id}/milestones`, { body: { title: 'M1' } });
    const first = await pushPipeline(t, project.id, sha);
    const [job] = await settled(project.id, first.id);
    const trace = await log(project.id, job!.id);
    expect(job!.status, trace).toBe('success');
    expect(trace).toContain('Executing "step_release" stage of the job script');
    expect(trace).toContain('msg="Creating Release..."');
    expect(trace).toContain('msg="Release created successfully!"');
    const release = (await t.api('GET', `/projects/${project.id}/releases/v2.0.0`)).body;
    expect(release).toMatchObject({
      tag_name: 'v2.0.0',
      name: `Release ${sha.slice(0, 8)}`,
      description: '## 2.0.0\n\nEverything.\n',
      commit: { id: sha },
      milestones: [{ title: 'M1' }],
      assets: { links: [{ name: 'app.zip', url: 'https://example.com/app.zip', link_type: 'package' }] },
    });
    expect(release.author.username).toBe('root');

    // The same release again: the API refuses it, release-cli exits 1 and the job fails as a script failure.
    const again = await pushPipeline(t, project.id, await commit(t, project.id, { 'other.txt': 'x' }));
    const [failed] = await settled(project.id, again.id);
    expect(failed).toMatchObject({ status: 'failed', failure_reason: 'script_failure' });
    const failedTrace = await log(project.id, failed!.id);
    expect(failedTrace).toContain('error="failed to create release: API Error Response status_code: 409 message: Release already exists"');
    expect(failedTrace).toContain('ERROR: Job failed: exit code 1');
  });

  it('is not run by the built-in runner once the script failed (an on_success step), while after_script still is', async () => {
    const { project, sha } = await projectWithConfig(t, `job:\n  script: exit 3\n  after_script: [echo "after $CI_JOB_STATUS"]\n  release:\n    tag_name: v9\n    ref: main\n    description: never\n`);
    const pipeline = await pushPipeline(t, project.id, sha);
    const [job] = await settled(project.id, pipeline.id);
    const trace = await log(project.id, job!.id);
    expect(job).toMatchObject({ status: 'failed', failure_reason: 'script_failure' });
    expect(trace).toContain('Executing "step_script" stage of the job script');
    expect(trace).not.toContain('step_release');
    expect(trace).toContain('after failed');
    expect(trace).toContain('ERROR: Job failed: exit code 3');
    expect((await t.api('GET', `/projects/${project.id}/releases/v9`)).status).toBe(404);
  });
});
