/** python-gitlab (the one this machine's /usr/bin/python3 imports) on commit comments and discussions; skipped, saying why, where it is not importable. */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { unique } from '../support/factories.js';
import { runCommand } from '../support/process.js';

const t = suiteServer();
const PYTHON = '/usr/bin/python3';
const probe = spawnSync(PYTHON, ['-c', 'import gitlab; print(gitlab.__version__)'], { encoding: 'utf8' });
const missing = probe.status === 0 ? null : `python-gitlab is not importable by ${PYTHON}: ${(probe.stderr || probe.error?.message || '').trim().split('\n').pop()}`;
if (missing) console.warn(`python-gitlab notes checks are skipped: ${missing}`);

describe.skipIf(missing !== null)(`python-gitlab ${probe.stdout?.trim() ?? ''}`, () => {
  it('comments on a commit and runs a commit thread through ProjectCommitComment and ProjectCommitDiscussion', async () => {
    const script = new URL('./python_gitlab_notes.py', import.meta.url).pathname;
    const { code, output } = await runCommand(PYTHON, ['-W', 'error::DeprecationWarning:__main__', script], { env: { GITLAB_URL: t.url, GITLAB_TOKEN: t.rootToken, PROJECT_NAME: unique('py') } });
    expect(output.trim().split('\n').pop(), output).toBe('python-gitlab notes: ok');
    expect(code, output).toBe(0);
  });
});
