/**
 * GitLab's internal users (Users::Internal): users the instance acts as, made on first need with a free username and
 * address (`unique_internal`), one of each type. They are no people: they cannot be blocked or deactivated, and
 * `exclude_internal` leaves them out of user lists.
 */
import type { Prisma } from '../../db/database.js';
import { equalsIgnoringCase } from '../../db/text.js';
import { UsersService, type UserRow } from './service.js';

/** User types GitLab counts as internal (`User::INTERNAL_USER_TYPES`), as far as this server has them. */
export const INTERNAL_USER_TYPES = ['ghost', 'alert_bot', 'automation_bot'];

export const isInternal = (user: Pick<UserRow, 'userType'>) => INTERNAL_USER_TYPES.includes(user.userType);

/** Advisory-lock keys of each internal user's creation (constants no other lock uses). */
const LOCKS: Record<string, number> = { ghost: 4_711_002, alert_bot: 4_711_003, automation_bot: 4_711_004 };

/**
 * The internal user of `userType`, made when there is none: `username`, or it with 1, 2, … after it while a user or a
 * top-level namespace has it or the address `email(suffix)` is taken.
 */
export async function internalUser(
  tx: Prisma.TransactionClient,
  userType: string,
  username: string,
  email: (suffix: string) => string,
  attributes: Omit<Prisma.UserCreateInput, 'username' | 'email' | 'userType'>,
): Promise<UserRow> {
  // Concurrent callers take turns, so exactly one is made.
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${LOCKS[userType]})`;
  const existing = await tx.user.findFirst({ where: { userType }, orderBy: { id: 'asc' } });
  if (existing) return existing;
  for (let n = 0; ; n++) {
    const suffix = n === 0 ? '' : String(n);
    const name = `${username}${suffix}`;
    const address = email(suffix);
    const taken = await tx.user.findFirst({ where: { OR: [{ username: equalsIgnoringCase(name) }, { email: equalsIgnoringCase(address) }] }, select: { id: true } });
    const pathTaken = await tx.namespace.findFirst({ where: { parentId: null, path: equalsIgnoringCase(name) }, select: { id: true } });
    if (taken || pathTaken) continue;
    return UsersService.insertSystemUser(tx, { ...attributes, username: name, email: address, userType });
  }
}

/** GitLab's alert bot (Users::Internal.alert_bot), which incident management acts as; `host` is the instance's. */
export function alertBot(tx: Prisma.TransactionClient, host: string): Promise<UserRow> {
  return internalUser(tx, 'alert_bot', 'alert-bot', (suffix) => `alert${suffix}@${host}`, {
    name: 'GitLab Alert Bot',
    bio: 'The GitLab alert bot',
    bot: true,
    privateProfile: true,
    projectsLimit: 0,
    canCreateGroup: false,
  });
}

/** GitLab's automation bot (Users::Internal.automation_bot), which automated workflows (iteration roll-over) act as. */
export function automationBot(tx: Prisma.TransactionClient, host: string): Promise<UserRow> {
  return internalUser(tx, 'automation_bot', 'automation-bot', (suffix) => `automation${suffix}@${host}`, {
    name: 'GitLab Automation Bot',
    bio: 'The GitLab automation bot used for automated workflows and tasks',
    bot: true,
    privateProfile: true,
    projectsLimit: 0,
    canCreateGroup: false,
  });
}
