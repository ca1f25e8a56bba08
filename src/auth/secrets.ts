/** Secrets are stored as digests: tokens as SHA-256 (they are long and random), passwords with scrypt. */
import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;

export function digestToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A new random token with GitLab's prefix, e.g. `glpat-…`. */
export function generateToken(prefix: string): string {
  return `${prefix}${randomBytes(24).toString('base64url')}`;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, 32);
  return `scrypt$${salt.toString('hex')}$${key.toString('hex')}`;
}

/** Whether `password` matches a digest `hashPassword` made (scrypt, as slow as when it was made); false for no digest. */
export async function verifyPassword(password: string, digest: string | null): Promise<boolean> {
  const [kind, salt, key] = (digest ?? '').split('$');
  if (kind !== 'scrypt' || !salt || !key) {
    // As slow as a real check, so timing does not tell which logins exist.
    await scryptAsync(password, randomBytes(16), 32);
    return false;
  }
  const expected = Buffer.from(key, 'hex');
  const actual = await scryptAsync(password, Buffer.from(salt, 'hex'), expected.length);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
