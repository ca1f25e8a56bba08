/**
 * python-gitlab (Debian's python3-gitlab, run by /usr/bin/python3) drives project, group and system hooks as its
 * functional test_project_hooks, test_group_hooks and test_hooks do (test/clients/python_gitlab_hooks.py). Skipped, saying why, where
 * python-gitlab is not importable.
 */
import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';

const PYTHON = '/usr/bin/python3';
const SCRIPT = new URL('../clients/python_gitlab_hooks.py', import.meta.url).pathname;

const probe = spawnSync(PYTHON, ['-c', 'import gitlab; print(gitlab.__version__)'], { encoding: 'utf8' });
const missing =
  probe.status === 0 ? null : `python-gitlab is not importable by ${PYTHON} (apt-get install python3-gitlab): ${(probe.stderr || probe.error?.message || '').trim().split('\n').pop()}`;
if (missing) console.warn(`test/hooks/python-gitlab.test.ts is skipped: ${missing}`);

describe.skipIf(missing !== null)('python-gitlab project.hooks, group.hooks and gl.hooks', () => {
  const t = suiteServer();
  it('creates, lists, changes and deletes hooks as python-gitlab does', async () => {
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn(PYTHON, [SCRIPT], { env: { ...process.env, GITLAB_URL: t.url, GITLAB_TOKEN: t.rootToken }, stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.on('data', (c: Buffer) => (text += c.toString()));
      child.stderr.on('data', (c: Buffer) => (text += c.toString()));
      child.once('error', reject);
      child.once('close', (c) => resolve({ code: c, output: text }));
    });
    expect(output.trim().split('\n').pop(), output).toBe('python-gitlab hooks: ok');
    expect(code, output).toBe(0);
  });
});
