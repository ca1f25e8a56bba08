/**
 * python-gitlab's own functional tests (tests/functional/api at a pinned release, with the library of that release)
 * run against the server by Debian's pytest, in place of the GitLab container their conftest starts with Docker
 * (python_gitlab_suite_conftest.py replaces only that). Every test must pass, except those listed, each with its
 * reason, in python-gitlab-suite.expected: those must still fail, so a list that falls behind the server is noticed.
 *
 * The suite comes from python-gitlab's git history, never downloaded by the test: PYTHON_GITLAB_SOURCE names a clone
 * (or a bare repository); by default the mirror this machine keeps. Where it or pytest is absent, the test skips and
 * says why.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, runCommand } from '../support/process.js';
import { startTestServer, type TestServer } from '../support/server.js';

const PYTHON = '/usr/bin/python3';
const RELEASE = 'v4.13.0';
const SOURCE = process.env.PYTHON_GITLAB_SOURCE ?? '/work/.mirror/python-gitlab+python-gitlab/repo';
const FILES = [
  'test_users',
  'test_current_user',
  'test_groups',
  'test_projects',
  'test_repository',
  'test_branches',
  'test_variables',
  'test_project_job_token_scope',
  'test_gitlab',
  'test_issues',
  'test_packages',
  'test_snippets',
  'test_lazy_objects',
  'test_merge_requests',
  'test_epics',
  'test_releases',
].map((name) => `tests/functional/api/${name}.py`);
const EXPECTED = new URL('./python-gitlab-suite.expected', import.meta.url).pathname;
const CONFTEST = new URL('./python_gitlab_suite_conftest.py', import.meta.url).pathname;

function why(): string | null {
  const release = spawnSync('git', ['--git-dir', gitDir(SOURCE), 'rev-parse', '--verify', '--quiet', `${RELEASE}^{commit}`], { encoding: 'utf8' });
  if (release.status !== 0) return `python-gitlab's source at ${RELEASE} is not at ${SOURCE} (set PYTHON_GITLAB_SOURCE to a clone of github.com/python-gitlab/python-gitlab)`;
  const pytest = spawnSync(PYTHON, ['-c', 'import pytest, requests, requests_toolbelt'], { encoding: 'utf8' });
  if (pytest.status !== 0) return `${PYTHON} lacks pytest or requests (apt-get install python3-pytest python3-requests-toolbelt): ${pytest.stderr.trim().split('\n').pop()}`;
  return null;
}

/** A clone's git folder, or the bare repository itself. */
function gitDir(source: string): string {
  return existsSync(join(source, '.git')) ? join(source, '.git') : source;
}

const skipped = why();
if (skipped) console.warn(`test/clients/python-gitlab-suite.test.ts is skipped: ${skipped}`);

/** `file::test` → why it is expected to fail. */
function expectedFailures(): Map<string, string> {
  const listed = new Map<string, string>();
  for (const line of readFileSync(EXPECTED, 'utf8').split('\n')) {
    const text = line.trim();
    if (!text || text.startsWith('#')) continue;
    const [id, ...reason] = text.split(/\s+/);
    listed.set(id, reason.join(' '));
  }
  return listed;
}

interface Outcome {
  id: string;
  file: string;
  result: 'passed' | 'failed' | 'skipped';
  message: string;
}

/** The test cases of pytest's JUnit XML report. */
function outcomes(xml: string): Outcome[] {
  const cases = xml.match(/<testcase\b[\s\S]*?(?:\/>|<\/testcase>)/g) ?? [];
  return cases.map((testcase) => {
    const attribute = (name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(testcase)?.[1] ?? '';
    const file = `${attribute('classname').replace(/\./g, '/')}.py`;
    const id = `${file.replace(/^tests\/functional\/api\//, '')}::${attribute('name').replace(/&quot;/g, '"').replace(/&amp;/g, '&')}`;
    const failure = /<(failure|error)\b[^>]*message="([^"]*)"/.exec(testcase);
    const result = failure ? 'failed' : /<skipped\b/.test(testcase) ? 'skipped' : 'passed';
    return { id, file, result, message: failure?.[2].slice(0, 200) ?? '' };
  });
}

describe.skipIf(skipped !== null)(`python-gitlab's functional suite (${RELEASE}) against the server`, () => {
  let t: TestServer;
  let work: string;
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'python-gitlab-suite-'));
    const archive = spawnSync('sh', ['-c', `git --git-dir "$1" archive "$2" gitlab tests | tar -x -C "$3"`, 'sh', gitDir(SOURCE), RELEASE, work]);
    if (archive.status !== 0) throw new Error(`could not unpack the suite: ${archive.stderr.toString()}`);
    copyFileSync(CONFTEST, join(work, 'tests/functional/api/conftest.py'));
    // The release's own pytest settings (pyproject.toml), without its coverage options.
    writeFileSync(
      join(work, 'pytest.ini'),
      '[pytest]\nxfail_strict = true\nmarkers =\n    gitlab_premium: marks tests that require GitLab Premium\n    gitlab_ultimate: marks tests that require GitLab Ultimate\n',
    );
    const port = await freePort();
    t = await startTestServer({ port, externalUrl: `http://127.0.0.1:${port}` });
  });
  afterAll(async () => {
    await t?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('passes every test of the files covering what the server has, but those listed with a reason', async () => {
    const report = join(work, 'report.xml');
    const { output } = await runCommand(PYTHON, ['-m', 'pytest', '-p', 'no:cacheprovider', '-q', '--tb=line', `--junitxml=${report}`, ...FILES], {
      cwd: work,
      env: { PYTHONPATH: work, GITLAB_URL: t.url, GITLAB_TOKEN: t.rootToken },
    });
    expect(existsSync(report), output.slice(-3000)).toBe(true);
    const results = outcomes(readFileSync(report, 'utf8'));
    const listed = expectedFailures();
    const perFile = new Map<string, Record<Outcome['result'], number>>();
    for (const r of results) {
      const counts = perFile.get(r.file) ?? { passed: 0, failed: 0, skipped: 0 };
      counts[r.result]++;
      perFile.set(r.file, counts);
    }
    console.log([...perFile].map(([file, c]) => `${file}: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`).join('\n'));
    const unexpected = results.filter((r) => r.result === 'failed' && !listed.has(r.id)).map((r) => `${r.id}: ${r.message}`);
    const nowPassing = results.filter((r) => r.result === 'passed' && listed.has(r.id)).map((r) => r.id);
    const unknown = [...listed.keys()].filter((id) => !results.some((r) => r.id === id));
    expect({ unexpected, nowPassing, unknown }).toEqual({ unexpected: [], nowPassing: [], unknown: [] });
    expect(FILES.every((file) => perFile.has(file)), [...perFile.keys()].join(', ')).toBe(true);
  }, 600_000);
});
