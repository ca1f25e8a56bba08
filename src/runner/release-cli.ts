/**
 * The `release-cli` the built-in shell runner puts on a release job's PATH (the shell executor has no release-cli
 * image): `release-cli create` with release-cli's flags POSTs the release to `<api>/projects/$CI_PROJECT_ID/releases`
 * with the job's token (`<api>` is the API the runner itself reaches the server at, as its clone URL stands in for
 * the server's external URL; `$CI_API_V4_URL` without one), prints release-cli's log lines, and exits 1 on an API error (so
 * the release step, and the job, fail as a script failure). A `--description` naming a file inside the project
 * folder is read from that file, as release-cli does.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The shim's program, run by this process's node. */
const PROGRAM = String.raw`
const { readFileSync, statSync } = require('node:fs');
const { resolve, relative, isAbsolute } = require('node:path');
const log = (level, msg, fields = {}) => {
  const extra = Object.entries(fields).map(([k, v]) => ' ' + k + '=' + JSON.stringify(String(v))).join('');
  process.stderr.write('time="' + new Date().toISOString() + '" level=' + level + ' msg=' + JSON.stringify(msg) + ' cli=release-cli' + extra + '\n');
};
const fail = (error) => {
  log('fatal', 'run app', { error });
  process.exit(1);
};
const args = process.argv.slice(2);
if (args[0] !== 'create') fail('unknown command: ' + (args[0] || '') + ' (only "create" is provided by the built-in runner)');
const single = { '--name': 'name', '--description': 'description', '--tag-name': 'tag_name', '--tag-message': 'tag_message', '--ref': 'ref', '--released-at': 'released_at' };
const body = {};
const milestones = [];
const links = [];
for (let i = 1; i < args.length; i++) {
  let flag = args[i];
  let value;
  const eq = flag.indexOf('=');
  if (flag.startsWith('--') && eq > 0) [flag, value] = [flag.slice(0, eq), flag.slice(eq + 1)];
  else value = args[++i];
  if (value === undefined) fail('flag needs an argument: ' + flag);
  if (single[flag]) body[single[flag]] = value;
  else if (flag === '--milestone') milestones.push(value);
  else if (flag === '--assets-link') {
    try {
      links.push(JSON.parse(value));
    } catch (e) {
      fail('new CreateReleaseRequest: failed to parse assets: ' + e.message);
    }
  } else fail('flag provided but not defined: ' + flag);
}
const env = process.env;
const api = API || env.CI_API_V4_URL;
log('info', 'Creating Release...', { command: 'create', name: body.name || '', 'project-id': env.CI_PROJECT_ID, 'server-url': api.replace(/\/api\/v4$/, ''), version: '0.16.0' });
if (!body.tag_name) fail('new CreateReleaseRequest: tag-name is required');
if (body.description) {
  const dir = env.CI_PROJECT_DIR || process.cwd();
  const path = resolve(dir, body.description);
  const inside = !relative(dir, path).startsWith('..') && !isAbsolute(relative(dir, path));
  let isFile = false;
  try {
    isFile = inside && statSync(path).isFile();
  } catch {}
  if (isFile) {
    log('info', 'reading description from file', { file: body.description });
    body.description = readFileSync(path, 'utf8');
  } else log('info', 'file does not exist, using string', { description: body.description });
}
if (milestones.length) body.milestones = milestones;
if (links.length) body.assets = { links };
(async () => {
  let response;
  try {
    response = await fetch(api + '/projects/' + env.CI_PROJECT_ID + '/releases', {
      method: 'POST',
      headers: { 'JOB-TOKEN': env.CI_JOB_TOKEN || '', 'Content-Type': 'application/json', 'User-Agent': 'release-cli' },
      body: JSON.stringify(body),
    });
  } catch (e) {
    fail('failed to create release: ' + e.message);
  }
  const text = await response.text();
  if (response.status !== 201) {
    let message = text;
    try {
      const json = JSON.parse(text);
      message = typeof json.message === 'string' ? json.message : json.error || JSON.stringify(json.message);
    } catch {}
    fail('failed to create release: API Error Response status_code: ' + response.status + ' message: ' + message);
  }
  const release = JSON.parse(text);
  log('info', 'Release created successfully!', { tag_name: release.tag_name, name: release.name, url: (release._links && release._links.self) || '' });
})();
`;

/** Writes the `release-cli` executable into `dir`, talking to `api` (or `$CI_API_V4_URL`); returns `dir` for the job's PATH. */
export async function installReleaseCli(dir: string, api: string | null): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, 'release-cli');
  await writeFile(file, `#!${process.execPath}\nconst API = ${JSON.stringify(api)};\n${PROGRAM}`);
  await chmod(file, 0o755);
  return dir;
}
