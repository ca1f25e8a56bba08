/**
 * CI/CD ID tokens (GitLab's Gitlab::Ci::JwtV2 over JwtBase): RS256 JSON web tokens signed with the instance's CI
 * signing key, GitLab's `ci_jwt_signing_key` application setting, made once (4096 bits, as GitLab makes it) and
 * kept in the database. Its public half is what `/oauth/discovery/keys` publishes, under the key ID the tokens'
 * header names (the key's RFC 7638 thumbprint).
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPair, randomUUID, sign, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import type { PrismaClient } from '../db/database.js';

/** The signing key, its key ID, and its public half as GitLab's JWKS lists it. */
export interface SigningKey {
  key: KeyObject;
  kid: string;
  jwk: { kty: string; kid: string; e: string; n: string; use: 'sig'; alg: 'RS256' };
}

const SETTINGS_ID = 1;
const KEY_BITS = 4096;
/** GitLab's Jwt: tokens count from a few seconds earlier (clock skew), and live 5 minutes without a job timeout. */
const NOT_BEFORE_SECONDS = 5;
const DEFAULT_TTL_SECONDS = 5 * 60;

const loaded = new WeakMap<PrismaClient, Promise<SigningKey>>();

function describe(pem: string): SigningKey {
  const key = createPrivateKey(pem);
  const { e, n } = createPublicKey(key).export({ format: 'jwk' }) as { e: string; n: string };
  // RFC 7638: SHA-256 of the required members in lexicographic order, no whitespace.
  const kid = createHash('sha256').update(JSON.stringify({ e, kty: 'RSA', n })).digest('base64url');
  return { key, kid, jwk: { kty: 'RSA', kid, e, n, use: 'sig', alg: 'RS256' } };
}

/**
 * The instance's CI signing key, made and stored the first time it is needed (replicas racing to make it keep the
 * first one written); read once per database client.
 */
export function ciSigningKey(db: PrismaClient): Promise<SigningKey> {
  let key = loaded.get(db);
  if (!key) {
    key = (async () => {
      const stored = await db.applicationSetting.findUnique({ where: { id: SETTINGS_ID }, select: { ciJwtSigningKey: true } });
      if (stored?.ciJwtSigningKey) return describe(stored.ciJwtSigningKey);
      const { privateKey } = await promisify(generateKeyPair)('rsa', { modulusLength: KEY_BITS });
      const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
      // Only an absent key is written: whoever wrote first wins, and everyone reads that one back.
      await db.$executeRaw`
        INSERT INTO "application_settings" ("id", "ciJwtSigningKey", "updatedAt") VALUES (${SETTINGS_ID}, ${pem}, now())
        ON CONFLICT ("id") DO UPDATE SET "ciJwtSigningKey" = EXCLUDED."ciJwtSigningKey", "updatedAt" = now()
        WHERE "application_settings"."ciJwtSigningKey" IS NULL`;
      const row = await db.applicationSetting.findUniqueOrThrow({ where: { id: SETTINGS_ID }, select: { ciJwtSigningKey: true } });
      return describe(row.ciJwtSigningKey as string);
    })();
    key.catch(() => loaded.delete(db));
    loaded.set(db, key);
  }
  return key;
}

/** A JWT signed RS256 with `signing`, its header naming the key (`kid`) and `typ: JWT`, as JwtBase#encoded writes it. */
export function encodeJwt(signing: SigningKey, payload: object): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${part({ kid: signing.kid, typ: 'JWT', alg: 'RS256' })}.${part(payload)}`;
  return `${input}.${sign('sha256', Buffer.from(input), signing.key).toString('base64url')}`;
}

/**
 * GitLab's JwtV2 times and identity: a fresh `jti`, `iat` now, `nbf` 5 seconds before, `exp` after the job's
 * timeout (5 minutes without one).
 */
export function registeredClaims(now: Date, ttlSeconds: number | null): { jti: string; iat: number; nbf: number; exp: number } {
  const iat = Math.floor(now.getTime() / 1000);
  return { jti: randomUUID(), iat, nbf: iat - NOT_BEFORE_SECONDS, exp: iat + (ttlSeconds || DEFAULT_TTL_SECONDS) };
}
