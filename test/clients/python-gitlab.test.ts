/**
 * python-gitlab (Debian's python3-gitlab, run by /usr/bin/python3) drives a whole lifecycle against the real server:
 * test/clients/python_gitlab_lifecycle.py, a script as a gitlab.com administrator writes it. Skipped, saying why, on
 * a machine where python-gitlab is not importable.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, runCommand } from '../support/process.js';
import { startTestServer, type TestServer } from '../support/server.js';

const PYTHON = '/usr/bin/python3';
const SCRIPT = new URL('./python_gitlab_lifecycle.py', import.meta.url).pathname;

const probe = spawnSync(PYTHON, ['-c', 'import gitlab; print(gitlab.__version__)'], { encoding: 'utf8' });
const missing =
  probe.status === 0
    ? null
    : `python-gitlab is not importable by ${PYTHON} (apt-get install python3-gitlab): ${(probe.stderr || probe.error?.message || '').trim().split('\n').pop()}`;
if (missing) console.warn(`test/clients/python-gitlab.test.ts is skipped: ${missing}`);

describe.skipIf(missing !== null)(`python-gitlab ${probe.stdout?.trim() ?? ''} against the server`, () => {
  let t: TestServer;
  beforeAll(async () => {
    const port = await freePort();
    t = await startTestServer({ port, externalUrl: `http://127.0.0.1:${port}` });
  });
  afterAll(() => t?.close());

  it('runs the lifecycle script unchanged: users, groups, projects, members, avatars, sudo, pagination, errors, deletion', async () => {
    // UserWarning: python-gitlab warns when a Link header leaves the base URL; DeprecationWarning (pointed at the
    // script by python-gitlab): stale idioms.
    const { code, output } = await runCommand(PYTHON, ['-W', 'error::UserWarning', '-W', 'error::DeprecationWarning:__main__', SCRIPT], {
      env: { GITLAB_URL: t.url, GITLAB_TOKEN: t.rootToken },
    });
    expect(output.trim().split('\n').pop(), output).toBe('python-gitlab lifecycle: ok');
    expect(code, output).toBe(0);
  }, 180_000);
});
