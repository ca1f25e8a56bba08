/** Real clients of the repository history API: @gitbeaker/rest and python-gitlab (skipped, saying why, where it is not importable). */
import { spawn, spawnSync } from 'node:child_process';
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createProject, unique } from '../support/factories.js';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const t = suiteServer();
let api: InstanceType<typeof Gitlab>;

beforeAll(() => {
  api = new Gitlab({ host: t.url, token: t.rootToken });
});

const PYTHON = '/usr/bin/python3';
const probe = spawnSync(PYTHON, ['-c', 'import gitlab; print(gitlab.__version__)'], { encoding: 'utf8' });
const missing = probe.status === 0 ? null : `python-gitlab is not importable by ${PYTHON}: ${(probe.stderr || probe.error?.message || '').trim().split('\n').pop()}`;
if (missing) console.warn(`python-gitlab history checks are skipped: ${missing}`);

describe('@gitbeaker/rest', () => {
  it('archives, blames, cherry-picks, reverts, merge bases and contributors', async () => {
    const p = await createProject(t, t.rootToken);
    const first = await api.Commits.create(p.id, 'main', 'First', [{ action: 'create', filePath: 'a.txt', content: 'one\ntwo\n' }]);
    const second = await api.Commits.create(p.id, 'main', 'Second', [{ action: 'update', filePath: 'a.txt', content: 'one\nTWO\n' }]);

    const blob = await api.Repositories.showArchive(p.id, { fileType: 'zip' });
    const dir = mkdtempSync(join(tmpdir(), 'gitbeaker-archive-'));
    writeFileSync(join(dir, 'a.zip'), Buffer.from(await blob.arrayBuffer()));
    expect(execFileSync('unzip', ['-Z1', join(dir, 'a.zip')]).toString().split('\n').filter(Boolean).sort()).toEqual([`${p.path}-main-${second.id}/`, `${p.path}-main-${second.id}/a.txt`]);

    const blame = await api.RepositoryFiles.allFileBlames(p.id, 'a.txt', 'main', { range: { start: 2, end: 2 } });
    expect(blame.map((r) => [r.commit.id, r.lines])).toEqual([[second.id, ['TWO']]]);

    const diff = await api.Commits.showDiff(p.id, second.id);
    expect(diff.map((d) => d.new_path)).toEqual(['a.txt']);
    expect(await api.Commits.allReferences(p.id, first.id, { type: 'branch' })).toEqual([{ type: 'branch', name: 'main' }]);
    expect(await api.Commits.allMergeRequests(p.id, first.id)).toEqual([]);
    await expect(api.Commits.showGPGSignature(p.id, first.id)).rejects.toMatchObject({ cause: { response: { status: 404 } } });

    await api.Branches.create(p.id, 'stable', first.id);
    const picked = await api.Commits.cherryPick(p.id, second.id, 'stable', { message: 'Picked' });
    expect(picked).toMatchObject({ title: 'Picked', parent_ids: [first.id] });
    await expect(api.Commits.cherryPick(p.id, second.id, 'stable')).rejects.toMatchObject({ cause: { description: expect.stringMatching(/^Sorry, we cannot cherry-pick/) } });
    const reverted = await api.Commits.revert(p.id, second.id, 'main');
    expect(reverted.message).toBe(`Revert "Second"\n\nThis reverts commit ${second.id}`);

    expect((await api.Repositories.mergeBase(p.id, ['main', 'stable'])).id).toBe(first.id);
    expect(await api.Repositories.allContributors(p.id, { orderBy: 'name', sort: 'desc' })).toEqual([{ name: 'Administrator', email: expect.any(String), commits: 3, additions: 0, deletions: 0 }]);
  });
});

describe.skipIf(missing !== null)(`python-gitlab ${probe.stdout?.trim() ?? ''}`, () => {
  it('runs the history script: archive, blame, commit diff/refs/signature/merge requests, cherry-pick, revert, merge base, contributors', async () => {
    const script = new URL('./python_gitlab_history.py', import.meta.url).pathname;
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn(PYTHON, ['-W', 'error::DeprecationWarning:__main__', script], {
        env: { ...process.env, GITLAB_URL: t.url, GITLAB_TOKEN: t.rootToken, PROJECT_NAME: unique('py') },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (out += c.toString()));
      child.once('error', reject);
      child.once('close', (c) => resolve({ code: c, output: out }));
    });
    expect(output.trim().split('\n').pop(), output).toBe('python-gitlab history: ok');
    expect(code, output).toBe(0);
  });
});
