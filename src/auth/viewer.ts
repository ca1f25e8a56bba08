import type { PrismaClient } from '../db/database.js';
/** Who a request acts as. `null` is an anonymous caller; services decide what anonymous callers may do. */
export interface Viewer {
  id: number;
  username: string;
  admin: boolean;
  external: boolean;
  bot: boolean;
  /** Whether the user may create top-level groups. */
  canCreateGroup: boolean;
  /** ID of the token that authenticated the request. */
  tokenId: number;
  /** The day that token expires (it stops working at the start of that day), if it does. */
  tokenExpiresAt: Date | null;
  scopes: readonly string[];
  /** Set when an OAuth access token authenticated the request (`tokenId` is then 0): the token and its application. */
  oauth?: { tokenId: number; applicationId: number | null };
  /**
   * Set when a CI job token authenticated the request (GitLab's CI_JOB_TOKEN): the job's user acting for that job,
   * only on fields that accept job tokens and only on the job's own project.
   */
  job?: {
    id: number;
    projectId: number;
    pipelineId: number;
    /** The job project's namespace and the groups above it (group entries of inbound allowlists name them). */
    namespaceIds: readonly number[];
  };
}

/**
 * The user a background job acts for (a push's pipeline is created as its pusher), with every ability the user has
 * and no token; null when the user is gone or not active.
 */
export async function userViewer(db: PrismaClient, userId: number): Promise<Viewer | null> {
  return (await userViewers(db, [userId])).get(userId) ?? null;
}

/** userViewer for many users in one query: the active ones, by id. */
export async function userViewers(db: PrismaClient, userIds: readonly number[]): Promise<Map<number, Viewer>> {
  const users = await db.user.findMany({
    where: { id: { in: [...userIds] }, state: 'active' },
    select: { id: true, username: true, admin: true, external: true, bot: true, canCreateGroup: true },
  });
  return new Map(users.map((user) => [user.id, { ...user, tokenId: 0, tokenExpiresAt: null, scopes: ['api'] }]));
}
