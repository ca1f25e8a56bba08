/**
 * The root administrator's first token, kept where a lost start-up message cannot lose it: `<DATA_DIR>/initial_root_token`
 * (mode 0600), as GitLab keeps `/etc/gitlab/initial_root_password`. The file goes once the token has been used, or
 * 24 hours after it was written, whichever comes first; a server with `DATA_DIR=memory` keeps no file.
 */
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { PrismaClient } from '../../db/database.js';
import { digestToken } from '../../auth/secrets.js';

const FILE = 'initial_root_token';
/** GitLab removes its initial root password file after 24 hours. */
export const INITIAL_TOKEN_LIFETIME_MS = 24 * 60 * 60 * 1000;
const CHECK_EVERY_MS = 60_000;

export function initialRootTokenFile(dataDir: string): string | null {
  return dataDir === 'memory' ? null : join(dataDir, FILE);
}

/** Writes the token's file; its path, or null where the server keeps no files. */
export async function keepInitialRootToken(dataDir: string, token: string): Promise<string | null> {
  const file = initialRootTokenFile(dataDir);
  if (!file) return null;
  const text = [
    '# The personal access token of the root administrator, made on the first start.',
    '# This file is removed once the token has been used, or 24 hours after it was written.',
    `Token: ${token}`,
    '',
  ].join('\n');
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text, { mode: 0o600 });
  return file;
}

/**
 * Removes the file when its token has been used or it is older than INITIAL_TOKEN_LIFETIME_MS: now, then every minute
 * while it is there. Answers the file's path while it stays (for the start-up message), null otherwise; `stop` ends the
 * checks.
 */
export async function watchInitialRootToken(db: PrismaClient, dataDir: string, now = Date.now): Promise<{ file: string | null; stop(): void }> {
  const file = initialRootTokenFile(dataDir);
  const check = async (): Promise<boolean> => {
    if (!file) return false;
    const written = await stat(file).catch(() => null);
    if (!written) return false;
    const token = /^Token: (\S+)$/m.exec(await readFile(file, 'utf8').catch(() => ''))?.[1];
    const row = token ? await db.personalAccessToken.findUnique({ where: { digest: digestToken(token) }, select: { lastUsedAt: true, revoked: true } }) : null;
    const spent = !row || row.revoked || row.lastUsedAt !== null || now() - written.mtimeMs >= INITIAL_TOKEN_LIFETIME_MS;
    if (spent) await rm(file, { force: true });
    return !spent;
  };
  if (!(await check())) return { file: null, stop() {} };
  const timer = setInterval(() => {
    check().then(
      (stays) => stays || clearInterval(timer),
      () => undefined,
    );
  }, CHECK_EVERY_MS);
  timer.unref();
  return { file, stop: () => clearInterval(timer) };
}
