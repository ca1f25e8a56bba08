/** The PyPI tests' distributions (pypi-dist.py writes a real wheel and sdist) and twine's upload form, sent raw. */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '../support/process.js';
import type { TestServer } from '../support/server.js';

export interface Dist {
  fileName: string;
  bytes: Buffer;
  sha256: string;
  md5: string;
}

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

/** Builds the wheel and sdist of `name` `version` in a new folder; returns the folder and both files. */
export async function buildDists(name: string, version: string, requiresPython = '>=3.7', value = `${name} ${version}`): Promise<{ dir: string; wheel: Dist; sdist: Dist }> {
  const dir = await mkdtemp(join(tmpdir(), 'pypi-dist-'));
  const built = await runCommand('python3', [new URL('./pypi-dist.py', import.meta.url).pathname, dir, name, version, requiresPython, value]);
  if (built.code !== 0) throw new Error(built.output);
  const dists: Dist[] = [];
  for (const fileName of (await readdir(dir)).sort()) {
    const bytes = await readFile(join(dir, fileName));
    dists.push({ fileName, bytes, sha256: sha256(bytes), md5: md5(bytes) });
  }
  const wheel = dists.find((d) => d.fileName.endsWith('.whl'));
  const sdist = dists.find((d) => d.fileName.endsWith('.tar.gz'));
  if (!wheel || !sdist) throw new Error(`not built: ${dists.map((d) => d.fileName).join(', ')}`);
  return { dir, wheel, sdist };
}

export const removeDir = (dir: string) => rm(dir, { recursive: true, force: true });

export const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;

/** twine's form, as `twine upload` posts it: fields first, the file last as `content`. */
export async function pypiUpload(
  t: TestServer,
  projectId: number | string,
  dist: { fileName: string; bytes: Buffer; sha256?: string; md5?: string },
  fields: Record<string, string>,
  authorization: string | null,
) {
  const form = new FormData();
  const all: Record<string, string> = { ':action': 'file_upload', protocol_version: '1', filetype: dist.fileName.endsWith('.whl') ? 'bdist_wheel' : 'sdist', ...fields };
  if (dist.sha256 && !('sha256_digest' in fields)) all.sha256_digest = dist.sha256;
  if (dist.md5 && !('md5_digest' in fields)) all.md5_digest = dist.md5;
  for (const [key, value] of Object.entries(all)) form.append(key, value);
  form.append('content', new Blob([new Uint8Array(dist.bytes)]), dist.fileName);
  const res = await fetch(`${t.url}/api/v4/projects/${projectId}/packages/pypi`, { method: 'POST', body: form, headers: authorization ? { Authorization: authorization } : {} });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // a plain-text answer
  }
  return { status: res.status, headers: res.headers, text, body };
}

/** A GET of a PyPI route: status, headers and the body as text. */
export async function pypiGet(t: TestServer, path: string, authorization: string | null = null) {
  const res = await fetch(`${t.url}/api/v4${path}`, { headers: authorization ? { Authorization: authorization } : {} });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, text: bytes.toString('utf8'), bytes };
}
