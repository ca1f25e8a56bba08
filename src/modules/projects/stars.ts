/** Stars on projects (GitLab's users_star_projects): starring, unstarring, a project's starrers, a user's starred projects. */
import type { Prisma } from '../../db/database.js';
import { containsIgnoringCase } from '../../db/text.js';
import { notModified } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import type { ServiceBase } from '../module.js';

export class ProjectStars {
  constructor(private readonly base: ServiceBase) {}

  /** Stars (true) or unstars the project for the viewer; 304 Not Modified when it already is so (GitLab's not_modified!). */
  async set(projectId: number, starred: boolean): Promise<void> {
    const viewer = this.base.access.requireViewer();
    const key = { projectId_userId: { projectId, userId: viewer.id } };
    const changed = starred
      ? await this.base.db.projectStar.createMany({ data: [{ projectId, userId: viewer.id }], skipDuplicates: true })
      : await this.base.db.projectStar.deleteMany({ where: key.projectId_userId });
    if (changed.count === 0) throw notModified();
    this.base.loaders.projects.starCount.clear(projectId);
  }

  /**
   * Who starred the project, newest star first (GitLab's UsersStarProjectsFinder): users with a private profile
   * only to administrators and to themselves.
   */
  starrers(projectId: number, search: string | null | undefined, page: PageArgs) {
    const { db, access } = this.base;
    const viewer = access.viewer;
    const and: Prisma.ProjectStarWhereInput[] = [{ projectId }];
    if (!access.allowed('admin_all_resources')) and.push({ user: { OR: [{ privateProfile: false }, ...(viewer ? [{ id: viewer.id }] : [])] } });
    if (search) and.push({ user: { OR: [{ name: containsIgnoringCase(search) }, { username: containsIgnoringCase(search) }] } });
    const where: Prisma.ProjectStarWhereInput = { AND: and };
    return connection(
      page,
      async ({ skip, take }) => {
        const rows = await db.projectStar.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip, take, include: { user: true } });
        for (const row of rows) this.base.loaders.users.byId.prime(row.user.id, row.user);
        return rows;
      },
      () => db.projectStar.count({ where }),
    );
  }
}
