/**
 * SSH public keys as GitLab's Gitlab::SSHPublicKey reads them: `<type> <base64 blob> [comment]`, the blob's own
 * first field naming the same type. Fingerprints are digests of the decoded blob: MD5 as colon-separated hex, and
 * SHA-256 as unpadded base64 (`SHA256:` shown in front, as `ssh-keygen -l` does).
 */
import { createHash } from 'node:crypto';

/** The algorithms GitLab accepts (Gitlab::SSHPublicKey.supported_algorithms). */
export const SSH_KEY_TYPES = [
  'ssh-rsa',
  'ssh-dss',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'ssh-ed25519',
  'sk-ecdsa-sha2-nistp256@openssh.com',
  'sk-ssh-ed25519@openssh.com',
] as const;

export interface ParsedSshKey {
  type: string;
  /** The base64 blob as given. */
  data: string;
  /** `<type> <base64>` and the comment, if any: what is stored. */
  normalized: string;
  /** Colon-separated hex MD5 of the blob. */
  fingerprint: string;
  /** Unpadded base64 SHA-256 of the blob, without the `SHA256:` prefix. */
  fingerprintSha256: string;
}

/** GitLab's sanitize: line breaks go (a key pasted across lines), surrounding blanks too. */
export function sanitizeSshKey(key: string): string {
  return key.replace(/[\r\n]/g, '').trim();
}

/** Whether the key starts with a supported type (GitLab's format validation of `key`). */
export function hasSupportedType(key: string): boolean {
  return SSH_KEY_TYPES.some((type) => key.startsWith(type));
}

/** The key parsed and fingerprinted; null when it is not a well-formed key of a supported type. */
export function parseSshKey(key: string): ParsedSshKey | null {
  const [type, data, ...comment] = sanitizeSshKey(key).split(/\s+/);
  if (!type || !data || !(SSH_KEY_TYPES as readonly string[]).includes(type)) return null;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(data) || data.length % 4 !== 0) return null;
  const blob = Buffer.from(data, 'base64');
  // The blob starts with the type again, as an SSH string: a 4-byte big-endian length, then the name.
  if (blob.length < 4) return null;
  const length = blob.readUInt32BE(0);
  if (length !== Buffer.byteLength(type) || blob.length < 4 + length || blob.subarray(4, 4 + length).toString('latin1') !== type) return null;
  if (blob.length === 4 + length) return null;
  const md5 = createHash('md5').update(blob).digest('hex');
  return {
    type,
    data,
    normalized: [type, data, ...comment].join(' '),
    fingerprint: md5.match(/../g)?.join(':') ?? md5,
    fingerprintSha256: createHash('sha256').update(blob).digest('base64').replace(/=+$/, ''),
  };
}
