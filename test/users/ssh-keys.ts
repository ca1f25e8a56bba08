/** SSH public keys for tests: fresh random ones, and fixed ones whose fingerprints `ssh-keygen -l` printed. */
import { randomBytes } from 'node:crypto';

function sshString(b: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(b.length);
  return Buffer.concat([length, b]);
}

/** A new ed25519 public key in OpenSSH's format (random bytes stand for the point: only the format is checked). */
export function freshKey(comment = 'test@example.com'): string {
  const blob = Buffer.concat([sshString(Buffer.from('ssh-ed25519')), sshString(randomBytes(32))]);
  return `ssh-ed25519 ${blob.toString('base64')} ${comment}`;
}

/** Keys made with ssh-keygen, with the fingerprints `ssh-keygen -l -E sha256|md5` gave for them. */
export const KNOWN_KEYS = {
  ed25519: {
    key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOY44BqnzqlkXmAKG4Wx/wFQz4N1oE0cXTddHnfMGTNO me@example.com',
    sha256: 'SHA256:YE5RHxgr/iSbIAcKmf+w7ol/V/egrOaUGgUt85N1mDs',
    md5: 'e2:b2:3e:99:7e:7d:ac:17:36:1b:57:12:f7:90:e8:c0',
  },
  rsa: {
    key:
      'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQDKXhp6snZF9pBE7BiPq8MSGLWCgFWVwNnk2PULuLw8+PoOqssrEW70oFStQzocejusGEQ9sISyZwMVm1lh3GhJobT5oX7/K2xcBbaBywLJofpy1bVB75L9gqulOQFR+BhlUZ6ouE3s6DZPp24njz1NxPEpnUUeGwlwmCzTpfdIazw51uv5Voe0yimN72q/m6oxxVuHKcjbTYxJ5DHYA516wIG4K8rruWTujIICfpFVsj2VtL54LZy3eNDcSNBbiOJwtkYczuVX65umTKKy4rJtOWtUL0QF1A8AYnUgJEJcRJ/EVnY1pIdJqsn2B+JrlVJDOj0uaE+xS5WvUrcyskHj rsa@example.com',
    sha256: 'SHA256:ZItyrZ9/neLicvsmaJS2qLX+UXdIXUSWiounKNWNxOI',
    md5: '63:bd:67:62:b3:a4:25:4a:c5:02:b7:e8:0e:2d:54:0e',
  },
} as const;
