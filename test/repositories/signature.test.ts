/** `GET /repository/commits/:sha/signature` of a GPG-signed commit pushed with the real git CLI (skipped, saying why, without gpg). */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createProject } from '../support/factories.js';
import { cloneUrl, gitSandbox } from '../support/git.js';

const t = suiteServer();
const git = gitSandbox();
const gpg = spawnSync('gpg', ['--version'], { encoding: 'utf8' });
const missing = gpg.status === 0 ? null : 'gpg is not installed';
if (missing) console.warn(`test/repositories/signature.test.ts is skipped: ${missing}`);

describe.skipIf(missing !== null)('GET /projects/:id/repository/commits/:sha/signature', () => {
  it("answers GitLab's CommitSignature for a signed commit (a key the server was never given: unknown_key)", async () => {
    const home = join(git.root, 'gnupg');
    mkdirSync(home, { mode: 0o700 });
    const env = { ...process.env, GNUPGHOME: home };
    execFileSync('gpg', ['--batch', '--pinentry-mode', 'loopback', '--passphrase', '', '--quick-gen-key', 'Signer Person <signer@example.com>', 'ed25519', 'sign', 'never'], { env, stdio: 'ignore' });
    const fingerprint = execFileSync('gpg', ['--batch', '--with-colons', '--fingerprint', 'signer@example.com'], { env }).toString().split('\n').find((l) => l.startsWith('fpr:'))!.split(':')[9];
    const p = await createProject(t, t.rootToken);
    const work = git.folder();
    await git.ok(work, ['init', '-q', '-b', 'main']);
    writeFileSync(join(work, 'a.txt'), 'a\n');
    await git.ok(work, ['add', 'a.txt']);
    await git.ok(work, ['-c', `user.signingkey=${fingerprint}`, 'commit', '-q', '-S', '-m', 'Signed'], { GNUPGHOME: home });
    const sha = (await git.ok(work, ['rev-parse', 'HEAD'])).trim();
    await git.ok(work, ['push', '-q', cloneUrl(t.url, p.path_with_namespace, t.rootToken), 'main']);
    const res = await t.api('GET', `/projects/${p.id}/repository/commits/${sha}/signature`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      signature_type: 'PGP',
      verification_status: 'unknown_key',
      gpg_key_id: null,
      gpg_key_primary_keyid: fingerprint.slice(-16),
      gpg_key_user_name: null,
      gpg_key_user_email: null,
      gpg_key_subkey_id: null,
      commit_source: 'gitaly',
    });
  });
});
