/** GitLab's GraphQL fields of commits: rendered title and description, diffs (at most 10 commits a request) and signatures (GPG and SSH; SSH ones verified against users' signing keys). */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, apiOk, createProject, createUser } from '../support/factories.js';
import { cloneUrl, gitSandbox } from '../support/git.js';

const t = suiteServer();
const git = gitSandbox();
const hasGpg = spawnSync('gpg', ['--version']).status === 0;
const hasSshKeygen = spawnSync('ssh-keygen', ['-?']).status !== null;

let project: any;
let plainSha = '';

const COMMIT = `query($p: ID!, $ref: String!) { project(fullPath: $p) { repository { commit(ref: $ref) {
  titleHtml fullTitleHtml descriptionHtml
  diffs { newPath oldPath newFile deletedFile diff }
  signature { __typename commitSha verificationStatus project { id }
    ... on GpgSignature { gpgKeyPrimaryKeyid gpgKeyUserName gpgKeyUserEmail user { id } }
    ... on SshSignature { keyFingerprintSha256 user { id } } }
} } } }`;

async function commit(ref: string, token: string | null = t.rootToken) {
  const res = await t.graphql(COMMIT, { p: project.path_with_namespace, ref }, token);
  return res.body;
}

beforeAll(async () => {
  project = await createProject(t, t.rootToken);
  const made = await apiOk(t, t.rootToken, 'POST', `/projects/${project.id}/repository/commits`, {
    branch: 'main',
    commit_message: 'Add **bold** things\n\nBody with `code` and <script>x</script>',
    actions: [
      { action: 'create', file_path: 'a.txt', content: 'one\n' },
      { action: 'create', file_path: 'b.txt', content: 'two\n' },
    ],
  });
  plainSha = made.id;
});

describe('Commit', () => {
  it('renders its title, full title and description, and lists its diffs', async () => {
    const body = await commit(plainSha);
    expect(body.errors).toBeUndefined();
    const c = body.data.project.repository.commit;
    expect(c.titleHtml).toBe('Add <strong>bold</strong> things');
    expect(c.fullTitleHtml).toBe('Add <strong>bold</strong> things');
    expect(c.descriptionHtml).toContain('<code>code</code>');
    expect(c.descriptionHtml).not.toContain('<script>');
    expect(c.diffs.map((d: any) => [d.newPath, d.newFile])).toEqual([
      ['a.txt', 'true'],
      ['b.txt', 'true'],
    ]);
    expect(c.diffs[0].diff).toBe('@@ -0,0 +1 @@\n+one\n');
    expect(c.signature).toBeNull();
  });

  it('answers a commit without description a null descriptionHtml, and a viewer without code no commit', async () => {
    const made = await apiOk(t, t.rootToken, 'POST', `/projects/${project.id}/repository/commits`, {
      branch: 'main',
      commit_message: 'Only a title',
      actions: [{ action: 'create', file_path: 'c.txt', content: 'three\n' }],
    });
    expect((await commit(made.id)).data.project.repository.commit.descriptionHtml).toBeNull();
    const guest = await createUser(t);
    await addMember(t, t.rootToken, 'projects', project.id, guest.id, 10);
    const asGuest = await commit(made.id, guest.token);
    expect(asGuest.data.project.repository).toBeNull();
  });

  it("refuses diffs of more than 10 commits in one request, as GitLab's field call limit", async () => {
    const query = `query($p: ID!) { project(fullPath: $p) { repository { commits(first: 11) { nodes { sha diffs { newPath } } } } } }`;
    for (let i = 0; i < 10; i++) {
      await apiOk(t, t.rootToken, 'POST', `/projects/${project.id}/repository/commits`, {
        branch: 'main',
        commit_message: `More ${i}`,
        actions: [{ action: 'create', file_path: `more-${i}.txt`, content: `${i}\n` }],
      });
    }
    const res = await t.graphql(query, { p: project.path_with_namespace });
    expect(res.body.errors?.map((e: any) => e.message)).toEqual(["'diffs' field can be requested only for 10 Commit(s) at a time."]);
    const nodes = res.body.data.project.repository.commits.nodes;
    expect(nodes.filter((n: any) => n.diffs !== null)).toHaveLength(10);
    expect(nodes[0].diffs).toEqual([{ newPath: 'more-9.txt' }]);
  });
});

describe.skipIf(!hasGpg || !hasSshKeygen)('Commit.signature', () => {
  it("answers GPG and SSH signatures: unknown keys, an SSH key a user added for signing (verified, other user) and a bad signature", async () => {
    const home = join(git.root, 'gnupg');
    mkdirSync(home, { mode: 0o700 });
    const env = { ...process.env, GNUPGHOME: home };
    execFileSync('gpg', ['--batch', '--pinentry-mode', 'loopback', '--passphrase', '', '--quick-gen-key', 'Signer <signer@example.com>', 'ed25519', 'sign', 'never'], { env, stdio: 'ignore' });
    const fingerprint = execFileSync('gpg', ['--batch', '--with-colons', '--fingerprint', 'signer@example.com'], { env }).toString().split('\n').find((l) => l.startsWith('fpr:'))!.split(':')[9];
    const sshKey = join(git.root, 'id_ed25519');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', sshKey]);
    const publicBlob = Buffer.from(readFileSync(`${sshKey}.pub`, 'utf8').split(' ')[1], 'base64');
    const sshFingerprint = `SHA256:${createHash('sha256').update(publicBlob).digest('base64').replace(/=+$/, '')}`;

    const work = git.folder();
    await git.ok(work, ['clone', '-q', cloneUrl(t.url, project.path_with_namespace, t.rootToken), '.']);
    writeFileSync(join(work, 'gpg.txt'), 'g\n');
    await git.ok(work, ['add', 'gpg.txt']);
    await git.ok(work, ['-c', `user.signingkey=${fingerprint}`, 'commit', '-q', '-S', '-m', 'GPG signed'], { GNUPGHOME: home });
    const gpgSha = (await git.ok(work, ['rev-parse', 'HEAD'])).trim();
    writeFileSync(join(work, 'ssh.txt'), 's\n');
    await git.ok(work, ['add', 'ssh.txt']);
    await git.ok(work, ['-c', 'gpg.format=ssh', '-c', `user.signingkey=${sshKey}`, 'commit', '-q', '-S', '-m', 'SSH signed']);
    const sshSha = (await git.ok(work, ['rev-parse', 'HEAD'])).trim();
    await git.ok(work, ['push', '-q', 'origin', 'HEAD:main']);

    const gpg = (await commit(gpgSha)).data.project.repository.commit.signature;
    expect(gpg).toEqual({
      __typename: 'GpgSignature',
      commitSha: gpgSha,
      verificationStatus: 'UNKNOWN_KEY',
      project: { id: `gid://gitlab/Project/${project.id}` },
      gpgKeyPrimaryKeyid: fingerprint.slice(-16),
      gpgKeyUserName: null,
      gpgKeyUserEmail: null,
      user: null,
    });
    const ssh = (await commit(sshSha)).data.project.repository.commit.signature;
    expect(ssh).toEqual({
      __typename: 'SshSignature',
      commitSha: sshSha,
      verificationStatus: 'UNKNOWN_KEY',
      project: { id: `gid://gitlab/Project/${project.id}` },
      keyFingerprintSha256: sshFingerprint,
      user: null,
    });
    // Once a user adds the key for signing, a commit they committed verifies; one someone else committed is other_user.
    const signer = await createUser(t);
    await apiOk(t, signer.token, 'POST', '/user/keys', { title: 'signing', key: readFileSync(`${sshKey}.pub`, 'utf8').trim(), usage_type: 'signing' });
    writeFileSync(join(work, 'mine.txt'), 'm\n');
    await git.ok(work, ['add', 'mine.txt']);
    await git.ok(work, ['-c', 'gpg.format=ssh', '-c', `user.signingkey=${sshKey}`, 'commit', '-q', '-S', '-m', 'Mine'], { GIT_COMMITTER_EMAIL: `${signer.username}@example.com` });
    const mineSha = (await git.ok(work, ['rev-parse', 'HEAD'])).trim();
    await git.ok(work, ['push', '-q', 'origin', 'HEAD:main']);
    const mine = (await commit(mineSha)).data.project.repository.commit.signature;
    expect(mine).toMatchObject({ __typename: 'SshSignature', verificationStatus: 'VERIFIED', keyFingerprintSha256: sshFingerprint, user: { id: `gid://gitlab/User/${signer.id}` } });
    const theirs = (await commit(sshSha)).data.project.repository.commit.signature;
    expect(theirs).toMatchObject({ verificationStatus: 'OTHER_USER', user: { id: `gid://gitlab/User/${signer.id}` } });
    // A signature that does not match the commit is unverified: the same signature header on another commit.
    const raw = await git.ok(work, ['cat-file', 'commit', mineSha]);
    const forged = raw.replace('\nMine\n', '\nNot mine\n');
    writeFileSync(join(git.root, 'forged-commit'), forged);
    const forgedSha = (await git.ok(work, ['hash-object', '-t', 'commit', '-w', join(git.root, 'forged-commit')])).trim();
    await git.ok(work, ['push', '-q', 'origin', `${forgedSha}:refs/heads/forged`]);
    const bad = (await commit(forgedSha)).data.project.repository.commit.signature;
    expect(bad).toMatchObject({ __typename: 'SshSignature', verificationStatus: 'UNVERIFIED', user: null });
    // REST's signature of the SSH-signed commit names its kind.
    const rest = await t.api('GET', `/projects/${project.id}/repository/commits/${sshSha}/signature`);
    expect(rest.body).toEqual({ signature_type: 'SSH', verification_status: 'other_user', commit_source: 'gitaly' });
  });
});
