/** Owns users' SSH keys (GitLab's Key): listing, adding with fingerprints computed from the key, and removing them. */
import type { PrismaClient } from '../../../db/database.js';
import { invalid, notFound, recordNotFound } from '../../../errors.js';
import { connection, type PageArgs } from '../../../graphql/connection.js';
import type { ServiceBase } from '../../module.js';
import type { UserRow, UsersService } from '../service.js';
import { hasSupportedType, parseSshKey, sanitizeSshKey } from './fingerprint.js';
import { enqueueHookEvent } from '../../hooks/events.js';
import { keySystemEvent } from '../../hooks/payloads.js';

export type KeyRow = Awaited<ReturnType<PrismaClient['key']['findUniqueOrThrow']>>;

export interface KeyInput {
  userId?: number | null;
  key: string;
  title: string;
  expiresAt?: Date | string | null;
  usageType?: string | null;
}

const MAXIMUM_KEY_LENGTH = 5000;
const MAXIMUM_TITLE_LENGTH = 255;

export class SshKeysService {
  constructor(
    private readonly base: ServiceBase,
    private readonly users: UsersService,
  ) {}

  /** A user's keys, oldest first: readable by anyone who may read the user (GitLab publishes public keys). */
  list(user: UserRow, page: PageArgs) {
    const db = this.base.db;
    const where = { userId: user.id };
    return connection(
      page,
      ({ skip, take }) => db.key.findMany({ where, orderBy: { id: 'asc' }, skip, take }),
      () => db.key.count({ where }),
    );
  }

  /** One key of a user; NOT_FOUND (`404 Key Not Found`) when the user has none with this ID. */
  async get(user: UserRow, id: number): Promise<KeyRow> {
    const row = await this.base.db.key.findFirst({ where: { id, userId: user.id } });
    if (!row) throw notFound('Key');
    return row;
  }

  /** Any key by ID, with its owner (GitLab's `GET /keys/:id`, administrators only; `404 Not found` as Key.find answers). */
  async byId(id: number): Promise<KeyRow> {
    await this.base.access.authorize('admin_all_resources', null);
    const row = await this.base.db.key.findUnique({ where: { id } });
    if (!row) throw recordNotFound();
    return row;
  }

  /** The key with this MD5 (`aa:bb:…`) or SHA-256 (`SHA256:…`) fingerprint (GitLab's `GET /keys?fingerprint=`, administrators only). */
  async byFingerprint(fingerprint: string): Promise<KeyRow> {
    await this.base.access.authorize('admin_all_resources', null);
    const db = this.base.db;
    const sha256 = /^SHA256:(.+)$/.exec(fingerprint)?.[1];
    const row = sha256 ? await db.key.findUnique({ where: { fingerprintSha256: sha256 } }) : await db.key.findFirst({ where: { fingerprint }, orderBy: { id: 'asc' } });
    if (!row) throw notFound('Key');
    return row;
  }

  /** The signing key (usage `signing` or `auth_and_signing`) with this SHA-256 fingerprint (`SHA256:…`), or null: GitLab's Key.signing.find_by_fingerprint_sha256, for commit signatures. */
  async signingKey(fingerprintSha256: string): Promise<KeyRow | null> {
    const sha256 = /^SHA256:(.+)$/.exec(fingerprintSha256)?.[1];
    if (!sha256) return null;
    return this.base.db.key.findFirst({ where: { fingerprintSha256: sha256, usageType: { in: ['signing', 'auth_and_signing'] } } });
  }

  /** Adds a key to the viewer (no `userId`) or, for an administrator, to any user, with GitLab's Key validations. */
  async create(input: KeyInput): Promise<KeyRow> {
    const user = await this.users.selfOr(input.userId);
    const key = sanitizeSshKey(input.key);
    const parsed = parseSshKey(key);
    const errors: Record<string, string[]> = {};
    const add = (field: string, message: string) => (errors[field] ??= []).push(message);
    if (!input.title.trim()) add('title', "can't be blank");
    if (input.title.length > MAXIMUM_TITLE_LENGTH) add('title', `is too long (maximum is ${MAXIMUM_TITLE_LENGTH} characters)`);
    if (!key) add('key', "can't be blank");
    if (key.length > MAXIMUM_KEY_LENGTH) add('key', `is too long (maximum is ${MAXIMUM_KEY_LENGTH} characters)`);
    if (key && !hasSupportedType(key)) add('key', 'is invalid');
    const expiresAt = input.expiresAt == null ? null : new Date(input.expiresAt);
    if (expiresAt && expiresAt.getTime() <= Date.now()) add('key', 'has expired');
    if (!parsed) add('fingerprintSha256', 'cannot be generated');
    else if (await this.base.db.key.findUnique({ where: { fingerprintSha256: parsed.fingerprintSha256 }, select: { id: true } })) {
      add('fingerprintSha256', 'has already been taken');
    }
    if (Object.keys(errors).length || !parsed) throw invalid(errors);
    const row = await this.base.db.$transaction(async (tx) => {
      const created = await tx.key.create({
        data: {
          userId: user.id,
          title: input.title,
          key: parsed.normalized,
          fingerprint: parsed.fingerprint,
          fingerprintSha256: parsed.fingerprintSha256,
          usageType: input.usageType ?? 'auth_and_signing',
          expiresAt,
        },
      });
      await enqueueHookEvent(this.base.app.jobs, { trigger: 'system_hooks', projectId: null, branch: null, data: keySystemEvent('key_create', created, user.username) }, tx);
      return created;
    });
    // Its system hook event exists now that the transaction committed.
    this.base.app.jobs.wake();
    return row;
  }

  /** Removes a key of the viewer (no `userId`) or, for an administrator, of any user. */
  async delete(userId: number | null | undefined, keyId: number): Promise<boolean> {
    const user = await this.users.selfOr(userId);
    const row = await this.get(user, keyId);
    await this.base.db.$transaction(async (tx) => {
      await tx.key.delete({ where: { id: row.id } });
      await enqueueHookEvent(this.base.app.jobs, { trigger: 'system_hooks', projectId: null, branch: null, data: keySystemEvent('key_destroy', row, user.username) }, tx);
    });
    this.base.app.jobs.wake();
    return true;
  }
}
