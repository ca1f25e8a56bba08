/** Owns projects: lookup by ID or path with visibility rules, filtered lists, and creation. */
import { forbidsSharedRunners } from '../groups/shared-runners.js';
import { MEMBERSHIPS_CHANGED, type MembershipsChanged } from '../../auth/memberships.js';
import { PROJECTS_CHANGED, type ProjectsChanged } from '../../auth/project-subjects.js';
import { defaultFeatureLevels, FEATURE_COLUMNS, type ProjectFeatureLevels } from '../../auth/project-features.js';
import type { UploadedFile } from '../../uploads/storage.js';
import { avatarDownload, avatarProblems, replaceAvatar, type FileDownload } from '../../uploads/avatars.js';
import { Prisma, type PrismaClient, type RawQuerier } from '../../db/database.js';
import { atLeastOneOf, badRequest, conflict, forbidden, invalid, methodNotAllowed, movedPermanently, notFound, notModified } from '../../errors.js';
import { readmePath } from '../../git/readme.js';
import { Repository } from '../../git/repository.js';
import { connection, type KeysetOrder, type PageArgs } from '../../graphql/connection.js';
import type { Ref } from '../../graphql/ids.js';
import type { ServiceBase } from '../module.js';
import type { ActivityService } from '../activity/service.js';
import { MembersService } from '../members/service.js';
import { PATH_RULE, VISIBILITY_RANK, isValidPath, pathFromName, type Visibility } from '../namespaces/paths.js';
import { NamespacesService, type NamespaceRow } from '../namespaces/service.js';
import type { UserRow } from '../users/service.js';
import { ProjectDeletion } from './deletion.js';
import { featureChanges, featureErrors, type ProjectFeaturesInput } from './features.js';
import { fetchProjectRows, primeProjectRows, type GroupLinkRow } from './loaders.js';
import { ProjectStars } from './stars.js';
import { containsIgnoringCase, equalsIgnoringCase } from '../../db/text.js';
import { enqueueHookEvent } from '../hooks/events.js';
import { CI_SETTINGS_ARGUMENTS, ciSettingsData, ciSettingsErrors, storeKeepLatestArtifact, type ProjectCiSettingsInput } from './ci-settings.js';
import { MERGE_SETTINGS_ARGUMENTS, mergeSettingsData, mergeSettingsErrors, type ProjectMergeSettingsInput } from './merge-settings.js';
import { projectSystemData } from '../hooks/samples.js';

/** A project row; projects are always read with their namespace and its owner, and their features (see fetchProjectRows). */
export type ProjectRow = Awaited<ReturnType<PrismaClient['project']['findUniqueOrThrow']>> & {
  namespace: NamespaceRow & { owner: UserRow | null };
  features: Awaited<ReturnType<PrismaClient['projectFeature']['findUniqueOrThrow']>> | null;
  /** Fetched with the row, and primed into their loaders (primeProjectRows); read them through the loaders. */
  groupLinks?: GroupLinkRow[];
  _count?: { forks: number; stars: number };
};

export interface ProjectFilters {
  search?: string | null;
  searchNamespaces?: boolean | null;
  owned?: boolean | null;
  membership?: boolean | null;
  /** Only projects the viewer starred. */
  starred?: boolean | null;
  /** Only projects this user starred (`GET /users/:id/starred_projects`). */
  starredBy?: number | null;
  /** Only forks of this project. */
  forkedFrom?: number | null;
  visibility?: Visibility | null;
  repositoryStorage?: string | null;
  archived?: boolean | null;
  minAccessLevel?: number | null;
  orderBy?: 'id' | 'name' | 'path' | 'created_at' | 'updated_at' | 'last_activity_at' | null;
  sort?: 'ASC' | 'DESC' | null;
  /** Only projects with a greater (idAfter) or smaller (idBefore) ID: GitLab's filters, and its keyset pages' links. */
  idAfter?: number | null;
  idBefore?: number | null;
  /** Only projects directly in this namespace (a user's personal projects: `GET /users/:id/projects`). */
  namespaceId?: number | null;
}

/** GitLab's project search: a fragment of the name, path or description (or the full path, with `searchNamespaces`). */
export function projectSearchWhere(search: string, searchNamespaces?: boolean | null): Prisma.ProjectWhereInput {
  const term = containsIgnoringCase(search);
  return { OR: [{ name: term }, { path: term }, ...(searchNamespaces ? [{ fullPath: term }] : []), { description: term }] };
}

export interface ProjectInput extends ProjectCiSettingsInput, ProjectMergeSettingsInput {
  name?: string | null;
  path?: string | null;
  /** The namespace to create the project in; the viewer's personal one when absent. */
  namespace?: Ref | null;
  description?: string | null;
  visibility?: Visibility | null;
  defaultBranch?: string | null;
  topics?: readonly string[] | null;
  /** GitLab's deprecated name of `topics`. */
  tagList?: readonly string[] | null;
  /** An avatar image (a file of a multipart body). */
  avatar?: UploadedFile | null;
  /** Feature settings besides GitLab's defaults. */
  features?: ProjectFeaturesInput | null;
  /** Whether instance runners run its jobs; by default what its group says (src/modules/groups/shared-runners.ts). */
  sharedRunnersEnabled?: boolean | null;
}

/** GitLab's Project validation of `shared_runners_enabled` under a group that keeps instance runners off. */
const SHARED_RUNNERS_FORBIDDEN = 'cannot be enabled because parent group does not allow it';

/** What `PUT /projects/:id` edits; undefined: left as it is. */
export interface ProjectUpdateInput extends ProjectCiSettingsInput, ProjectMergeSettingsInput {
  name?: string | null;
  path?: string | null;
  description?: string | null;
  defaultBranch?: string | null;
  visibility?: Visibility | null;
  topics?: readonly string[] | null;
  /** GitLab's deprecated name of `topics`. */
  tagList?: readonly string[] | null;
  ciConfigPath?: string | null;
  requestAccessEnabled?: boolean | null;
  /** Whether instance runners run its jobs; not while its group keeps them off without override. */
  sharedRunnersEnabled?: boolean | null;
  /** A new avatar image (a file of a multipart body); UploadedFile.BLANK removes the current one. */
  avatar?: UploadedFile | null;
  /** New feature settings. */
  features?: ProjectFeaturesInput | null;
}

/** The arguments of which `PUT /projects/:id` needs one (GitLab's at_least_one_of). */
const UPDATE_ARGUMENTS = [
  'name',
  'path',
  'description',
  'defaultBranch',
  'visibility',
  'topics',
  'tagList',
  'ciConfigPath',
  'requestAccessEnabled',
  'sharedRunnersEnabled',
  ...CI_SETTINGS_ARGUMENTS,
  ...MERGE_SETTINGS_ARGUMENTS,
  'avatar',
  ...Object.values(FEATURE_COLUMNS),
  'issuesEnabled',
  'jobsEnabled',
  'mergeRequestsEnabled',
  'wikiEnabled',
  'snippetsEnabled',
  'containerRegistryEnabled',
];

/** A project's feature levels as stored, or GitLab's defaults for its visibility when it has no row of them. */
function currentFeatureLevels(project: ProjectRow): ProjectFeatureLevels {
  const levels = defaultFeatureLevels(project.visibility);
  if (!project.features) return levels;
  for (const column of Object.values(FEATURE_COLUMNS)) levels[column] = project.features[column];
  return levels;
}

/** What `POST /projects/:id/fork` takes besides the project. */
export interface ForkInput {
  namespace?: Ref | null;
  name?: string | null;
  path?: string | null;
  description?: string | null;
  visibility?: Visibility | null;
  /** Only this branch (GitLab's `branches`); every branch and tag when absent. */
  branches?: string | null;
}

/** GitLab's project_name_regex: letters, digits, emoji, `_`, `.`, `+`, dashes and spaces, starting with no punctuation but `_`. */
const NAME = /^[\p{L}\p{N}\u{00A9}-\u{1F9FF}_][\p{L}\p{N}\p{Pd}+\u{00A9}-\u{1F9FF}_. ]*$/u;
const NAME_RULE = "can contain only letters, digits, emoji, '_', '.', '+', dashes, or spaces. It must start with a letter, digit, emoji, or '_'.";
/** Longest project description (GitLab's Project validation). */
const DESCRIPTION_MAX = 2000;

/** GitLab's topic list: comma-separated or not, each trimmed, empty ones dropped, each once whatever its case. */
function normalizeTopics(values: readonly string[]): string[] {
  const seen = new Set<string>();
  const topics: string[] = [];
  for (const topic of values.flatMap((v) => v.split(',')).map((t) => t.trim())) {
    if (!topic || seen.has(topic.toLowerCase())) continue;
    seen.add(topic.toLowerCase());
    topics.push(topic);
  }
  return topics;
}

/** A fork's validation errors: GitLab answers them with 409 and the record's messages (`conflict!(errors.messages)`). */
function conflictFields(errors: Record<string, string[]>) {
  return conflict('409 Conflict', errors);
}

const ORDER_COLUMNS = {
  id: 'id',
  name: 'name',
  path: 'path',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
  last_activity_at: 'lastActivityAt',
} as const;

export class ProjectsService {
  readonly stars: ProjectStars;
  readonly deletion: ProjectDeletion;

  constructor(
    private readonly base: ServiceBase,
    private readonly namespaces: NamespacesService,
    private readonly members: MembersService,
    private readonly activity: ActivityService,
  ) {
    this.stars = new ProjectStars(base);
    this.deletion = new ProjectDeletion(base);
  }

  /**
   * A project the viewer can read, by ID or full path; null otherwise. A REST request follows the redirect an old
   * path left (GitLab's API helpers: `follow_redirects: true`), and so does git over HTTP when it asks; GraphQL does
   * not (GitLab's FullPathModelLoader).
   * When the old path is the route's own `:id`, GitLab's `find_project!` answers for the move: 301 to the same request
   * by ID for a GET, 405 for any other method, once the caller may read the project.
   */
  async find(ref: Ref, options: { followRedirects?: boolean } = {}): Promise<ProjectRow | null> {
    const { loaders, access, rest } = this.base;
    const follow = options.followRedirects ?? rest !== undefined;
    // GitLab looks a project up by path only when the path has a slash; anything else names nothing.
    const found = 'id' in ref ? await loaders.projects.byId.load(ref.id) : ref.path.includes('/') ? await this.byPath(ref.path, follow) : null;
    const project = found && 'redirected' in found ? found.redirected : found;
    // A project whose deletion is under way is gone for every reader (GitLab's `without_deleted` scope).
    if (!project || project.pendingDelete || !(await access.can('read_project', project))) return null;
    if (rest && found !== project && 'path' in ref && ref.path === rest.projectPath) {
      if (rest.method !== 'GET') throw methodNotAllowed('Non GET methods are not allowed for moved projects');
      throw movedPermanently(rest.withProjectId(project.id));
    }
    return project;
  }

  /** The project's avatar as a download (GitLab's `GET /projects/:id/avatar`); `404 Avatar Not Found` without one. */
  async avatarFile(project: ProjectRow): Promise<FileDownload> {
    const download = await avatarDownload(this.base.app.uploads, 'project', project.id, project.avatar);
    if (!download) throw notFound('Avatar');
    return download;
  }


  /**
   * Case-insensitive, as GitLab's routes; the exact spelling first, since only it can use the unique index. A path
   * nothing holds follows, when asked, the redirect an earlier rename or transfer left (GitLab's `follow_redirects`),
   * saying so.
   */
  private async byPath(fullPath: string, followRedirects: boolean): Promise<ProjectRow | { redirected: ProjectRow | null } | null> {
    const { db, loaders } = this.base;
    const [exact] = await fetchProjectRows(db, Prisma.sql`p."fullPath" = ${fullPath}`);
    if (exact) return primeProjectRows(loaders, [exact])[0];
    const other = await db.project.findFirst({ where: { fullPath: equalsIgnoringCase(fullPath) }, select: { id: true } });
    if (other) return loaders.projects.byId.load(other.id);
    if (!followRedirects) return null;
    const redirect = await this.namespaces.redirectOf(fullPath);
    return redirect?.projectId != null ? { redirected: await loaders.projects.byId.load(redirect.projectId) } : null;
  }

  async get(ref: Ref): Promise<ProjectRow> {
    const project = await this.find(ref);
    if (!project) throw notFound('Project');
    return project;
  }

  async list(filters: ProjectFilters, page: PageArgs) {
    const { access } = this.base;
    const and: Prisma.ProjectWhereInput[] = [await access.where('read_project'), { pendingDelete: false }];
    if (filters.starred) and.push({ stars: { some: { userId: access.requireViewer().id } } });
    if (filters.starredBy != null) and.push({ stars: { some: { userId: filters.starredBy } } });
    if (filters.forkedFrom != null) and.push({ forkedFromProjectId: filters.forkedFrom });
    // GitLab's User#owned_projects: the viewer's personal projects, and those they hold the Owner role of (as a
    // member, or through a group they own or one shared with them).
    if (filters.owned) and.push({ OR: [{ namespace: { kind: 'user', ownerId: access.requireViewer().id } }, await access.memberProjectsWhere({ owned: true })] });
    if (filters.membership || filters.minAccessLevel != null) and.push(await access.memberProjectsWhere({ minAccessLevel: filters.minAccessLevel }));
    if (filters.visibility) and.push({ visibility: filters.visibility });
    if (filters.archived != null) and.push({ archived: filters.archived });
    if (filters.idAfter != null) and.push({ id: { gt: filters.idAfter } });
    if (filters.idBefore != null) and.push({ id: { lt: filters.idBefore } });
    if (filters.namespaceId != null) and.push({ namespaceId: filters.namespaceId });
    // Only administrators may filter by storage shard; GitLab ignores the filter for others.
    if (filters.repositoryStorage && access.allowed('admin_all_resources')) and.push({ repositoryStorage: filters.repositoryStorage });
    if (filters.search) and.push(projectSearchWhere(filters.search, filters.searchNamespaces));
    const where: Prisma.ProjectWhereInput = { AND: and };
    const direction = filters.sort === 'ASC' ? 'asc' : 'desc';
    const column = ORDER_COLUMNS[filters.orderBy ?? 'created_at'];
    const order: KeysetOrder = column === 'id' ? [['id', direction]] : [[column, direction], ['id', direction]];
    return this.page(where, order, page);
  }

  /**
   * `GET /users/:id/starred_projects` (GitLab's StarredProjectsFinder): the readable projects the user starred; none
   * when the user's profile is private to the viewer.
   */
  async starredBy(user: UserRow, filters: ProjectFilters, page: PageArgs) {
    if (!(await this.base.access.can('read_user_profile', user))) return connection(page, async () => [] as ProjectRow[], async () => 0);
    return this.list({ ...filters, starredBy: user.id }, page);
  }

  /** Readable projects of a namespace (and its descendants when asked), with those `alsoWhere` names (projects shared with a group). */
  async listInNamespace(ns: NamespaceRow, includeDescendants: boolean, page: PageArgs, alsoWhere?: Prisma.ProjectWhereInput) {
    const own: Prisma.ProjectWhereInput = includeDescendants ? { namespace: { traversalIds: { has: ns.id } } } : { namespaceId: ns.id };
    const scope = alsoWhere ? { OR: [own, alsoWhere] } : own;
    return this.page({ AND: [await this.base.access.where('read_project'), { pendingDelete: false }, scope] }, [['id', 'asc']], page);
  }

  page(where: Prisma.ProjectWhereInput, order: KeysetOrder, page: PageArgs) {
    const { db, loaders } = this.base;
    return connection(
      page,
      async ({ skip, take, seek, orderBy }) => {
        // The page's ids through Prisma (the filter is a Prisma where), then its rows in plain SQL (fetchProjectRows).
        const ids = (await db.project.findMany({ where: seek ? { AND: [where, seek] } : where, orderBy, skip, take, select: { id: true } })).map((p) => p.id);
        const byId = new Map((ids.length ? await fetchProjectRows(db, Prisma.sql`p."id" = ANY(${ids}::int[])`) : []).map((row) => [row.id, row]));
        const rows = primeProjectRows(loaders, ids.flatMap((id) => byId.get(id) ?? []));
        // Forks on the page find their source here when it is on the page too.
        for (const row of rows) loaders.projects.byId.prime(row.id, row);
        return rows;
      },
      () => db.project.count({ where }),
      order,
    );
  }

  /**
   * GitLab's `projects_limit`: how many projects a user may create in personal namespaces (the creator's limit
   * counts, wherever the personal namespace). Null while under it.
   */
  private async personalProjectsLimitError(creatorId: number): Promise<string | null> {
    const { db } = this.base;
    const [creator, created] = await Promise.all([
      this.base.loaders.users.byId.load(creatorId),
      db.project.count({ where: { creatorId, namespace: { kind: 'user' } } }),
    ]);
    if (!creator) return null;
    if (created < creator.projectsLimit) return null;
    return creator.projectsLimit === 0
      ? 'You cannot create projects in your personal namespace. Contact your GitLab administrator.'
      : `You've reached your limit of ${creator.projectsLimit} projects created. Contact your GitLab administrator.`;
  }

  /** Number of projects in the namespace and its descendants. */
  countInNamespaceTree(ns: NamespaceRow): Promise<number> {
    return this.base.loaders.projects.countInNamespaceTree.load(ns.id);
  }

  /**
   * The repository's state after a ref update (src/modules/repositories): whether it has a branch, its default
   * branch, and the project's last activity when something was pushed. No ability is checked: the caller pushed.
   */
  async repositoryChanged(tx: Prisma.TransactionClient, projectId: number, state: { emptyRepo: boolean; defaultBranch: string; readmePath?: string | null; pushedAt?: boolean }): Promise<void> {
    await tx.project.update({
      where: { id: projectId },
      data: {
        emptyRepo: state.emptyRepo,
        defaultBranch: state.defaultBranch,
        ...(state.readmePath !== undefined ? { readmePath: state.readmePath } : {}),
        ...(state.pushedAt ? { lastActivityAt: new Date() } : {}),
      },
      select: { id: true },
    });
    this.base.loaders.projects.byId.clear(projectId);
  }

  /**
   * Creates a project in a namespace where the viewer may `create_projects` (their own, or a group where they are
   * at least Developer, GitLab's default project creation level). The creator of a personal project becomes its Owner.
   */
  async create(input: ProjectInput): Promise<ProjectRow> {
    const viewer = this.base.access.requireViewer();
    return this.createAs(viewer.id, input);
  }

  /** `POST /projects/user/:user_id`: an administrator creates a project for another user, in their namespace by default. */
  async createForUser(userId: number, input: ProjectInput): Promise<ProjectRow> {
    const { access, loaders } = this.base;
    access.requireViewer();
    if (!access.allowed('admin_all_resources')) throw forbidden();
    const user = await loaders.users.byId.load(userId);
    if (!user) throw notFound('User');
    return this.createAs(user.id, input);
  }

  private async createAs(creatorId: number, input: ProjectInput, fork?: { source: ProjectRow; branches: string | null }): Promise<ProjectRow> {
    const { access, loaders, app } = this.base;
    if (!input.name && !input.path) throw atLeastOneOf('name', 'path');
    const path = input.path ?? pathFromName(input.name ?? '');
    const name = input.name ?? path;
    // What the namespace already holds (and, for the creator's own, their project limit) is read while the namespace
    // is looked up: one turn instead of two. Nothing of it is used, or answered, before access is checked.
    const target: Prisma.ProjectWhereInput | null = !input.namespace
      ? { namespace: { ownerId: creatorId, kind: 'user' } }
      : 'id' in input.namespace
        ? { namespaceId: input.namespace.id }
        : null;
    const clashing = target ? this.clashes(target, { name, path }) : undefined;
    const personalLimit = input.namespace ? undefined : this.personalProjectsLimitError(creatorId);
    for (const early of [clashing, personalLimit]) early?.catch(() => {});
    const ns = input.namespace ? await this.namespaces.lookup(input.namespace) : await loaders.namespaces.personalByOwnerId.load(creatorId);
    if (!ns || !(await access.can('read_namespace', ns))) throw notFound(fork ? 'Target Namespace' : 'Namespace');
    // GitLab creates as the creator: in their own namespace they may (an administrator creating for them included).
    const creatorsOwn = ns.kind === 'user' && ns.ownerId === creatorId;
    if (!creatorsOwn) await access.authorize('create_projects', ns);

    const visibility = input.visibility ?? 'private';
    const features = { ...defaultFeatureLevels(visibility), ...featureChanges(input.features) };
    const topics = input.topics ?? input.tagList;
    const [errors, limit] = await Promise.all([
      this.placementErrors(ns, { name, path, description: input.description, visibility, forkedFrom: fork?.source ?? null }, clashing),
      ns.kind === 'user' ? (personalLimit ?? this.personalProjectsLimitError(creatorId)) : null,
    ]);
    Object.assign(errors, featureErrors(features));
    if (input.sharedRunnersEnabled && forbidsSharedRunners(ns)) errors.sharedRunnersEnabled = [SHARED_RUNNERS_FORBIDDEN];
    Object.assign(errors, ciSettingsErrors(input), mergeSettingsErrors(input));
    if (input.avatar) {
      const problems = avatarProblems(input.avatar);
      if (problems.length) errors.avatar = problems;
    }
    if (limit) errors.limitReached = [limit];
    if (Object.keys(errors).length) throw fork ? conflictFields(errors) : invalid(errors);

    // The answer is built from what the creation returns and what is known already, not read back (a 6 kB statement).
    const owner = ns.kind === 'user' && ns.ownerId != null ? loaders.users.byId.load(ns.ownerId) : null;
    const fullPath = `${ns.fullPath}/${path}`;
    const columns: [string, Prisma.Sql][] = [
      ['name', Prisma.sql`${name}`],
      ['path', Prisma.sql`${path}`],
      ['fullPath', Prisma.sql`${fullPath}`],
      ['description', Prisma.sql`${input.description ?? null}`],
      ['visibility', Prisma.sql`${visibility}`],
      ['defaultBranch', Prisma.sql`${input.defaultBranch ?? 'main'}`],
      ['repositoryStorage', Prisma.sql`${app.repositories.pick()}`],
      ['namespaceId', Prisma.sql`${ns.id}::int`],
      ['creatorId', Prisma.sql`${creatorId}::int`],
      ['forkedFromProjectId', Prisma.sql`${fork?.source.id ?? null}::int`],
      ['topics', Prisma.sql`${fork ? fork.source.topics : topics != null ? normalizeTopics(topics) : []}::text[]`],
      ['ciConfigPath', Prisma.sql`${fork?.source.ciConfigPath ?? null}`],
      // GitLab's Projects::CreateService: off unless given, in a group whose instance runners are not enabled.
      ['sharedRunnersEnabled', Prisma.sql`${input.sharedRunnersEnabled ?? ns.sharedRunnersEnabled}::boolean`],
      ['emptyRepo', Prisma.sql`${fork?.source.emptyRepo ?? true}::boolean`],
      ...Object.entries({ ...ciSettingsData(input), ...mergeSettingsData(input) })
        .filter(([, v]) => v !== null)
        .map(([c, v]): [string, Prisma.Sql] => [c, typeof v === 'boolean' ? Prisma.sql`${v}::boolean` : typeof v === 'string' ? Prisma.sql`${v}` : Prisma.sql`${v}::int`]),
      ['updatedAt', Prisma.sql`now()`],
    ];
    const featureColumns = Object.keys(features) as (keyof ProjectFeatureLevels)[];
    const quoted = (names: readonly string[]) => Prisma.raw(names.map((c) => `"${c}"`).join(', '));
    const newId = Prisma.sql`(SELECT "id" FROM project)`;
    const creator = ns.kind === 'user' && ns.ownerId != null ? MembersService.creator('projectId', newId, ns.ownerId) : null;
    const event = this.activity.recording({ action: 'created', authorId: creatorId, targetType: null }, 'created', { id: newId, subject: { visibility, namespace: ns } });
    // One statement, one round trip: the path taken from old redirects, the project, its features, for a personal
    // project its owner's membership, and the `created` event, announced (the membership before the event).
    const insert = (db: RawQuerier, notify: Prisma.Sql) => db.$queryRaw<(Omit<ProjectRow, 'features'> & { features: ProjectRow['features'] })[]>`
      WITH released AS (${NamespacesService.releasingRedirects(fullPath)}),
      project AS (
        INSERT INTO "projects" (${quoted(columns.map(([c]) => c))}) VALUES (${Prisma.join(columns.map(([, v]) => v))}) RETURNING *
      ), features AS (
        INSERT INTO "project_features" ("projectId", ${quoted(featureColumns)})
        SELECT project."id", ${Prisma.join(featureColumns.map((c) => features[c]))} FROM project RETURNING *
      ), created AS (${event.insert})${creator ? Prisma.sql`, creator AS (${creator.insert})` : Prisma.empty}
      SELECT project.*, to_json(features) AS "features" FROM project CROSS JOIN features CROSS JOIN created CROSS JOIN LATERAL ${notify}`;
    const messages = creator ? [creator.announcement, event.announcement] : [event.announcement];
    const write = async (db: RawQuerier) => (await this.base.announce(messages, (notify) => insert(db, notify)))[0];
    const created = input.avatar
      ? await this.base.db.$transaction(async (tx) => {
          const row = await write(tx);
          return { ...(await replaceAvatar(app.uploads, 'project', row.id, input.avatar as UploadedFile, (avatar) => tx.project.update({ where: { id: row.id }, data: { avatar } }))), features: row.features };
        })
      : await write(this.base.db);
    // keep_latest_artifact lives in project_ci_cd_settings, whose absence means true: a row only for false.
    if (input.keepLatestArtifact === false) await storeKeepLatestArtifact(this.base.db, created.id, false);
    const project: ProjectRow = { ...created, namespace: { ...ns, owner: await owner }, groupLinks: [], _count: { forks: 0, stars: 0 } };
    // GitLab's project_create. After the one-statement creation (no transaction to join): a crash right here loses it.
    await enqueueHookEvent(app.jobs, { trigger: 'system_hooks', projectId: null, branch: null, data: projectSystemData('project_create', project) });
    // After the commit: a repository is never left behind by a project that does not exist. Should this fail (or the
    // server die right here), the repository is created on first use instead (RepositoryStorages.ensure).
    const stale = fork
      ? await app.repositories.copy(fork.source, project, fork.branches ? [`+refs/heads/${fork.branches}:refs/heads/${fork.branches}`] : ['+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*'], project.defaultBranch)
      : await app.repositories.createNew(project, project.defaultBranch).catch((error: unknown) => {
          app.logger.warn({ err: String(error), projectId: project.id }, 'repository not created yet');
          return null;
        });
    if (stale) app.logger.warn({ projectId: project.id, movedTo: stale }, 'a repository no project of this database owns was at the new project\'s place; moved aside');
    if (fork) {
      this.base.loaders.projects.forksCount.clear(fork.source.id);
      // A fork starts with its source's branches, so with a README to show.
      const readme = readmePath(await new Repository(await app.repositories.ensure(project, project.defaultBranch)).tree(`refs/heads/${project.defaultBranch}`, '', false));
      if (readme) project.readmePath = (await this.base.db.project.update({ where: { id: project.id }, data: { readmePath: readme }, select: { readmePath: true } })).readmePath;
    }
    return primeProjectRows(this.base.loaders, [project])[0];
  }

  /**
   * GitLab's model errors for a project named `name` at `path` in `ns` (its name and path unique there, its visibility
   * allowed); `clashing`, when the caller started reading them already, are the projects of `ns` like it.
   */
  private async placementErrors(
    ns: NamespaceRow,
    p: { name: string; path: string; description?: string | null; visibility: Visibility; forkedFrom: { visibility: string } | null; exceptId?: number },
    clashing = this.clashes({ namespaceId: ns.id }, p),
  ): Promise<Record<string, string[]>> {
    const errors: Record<string, string[]> = {};
    if (!p.name.trim()) errors.name = ["can't be blank"];
    else if (p.name.length > 255) errors.name = ['is too long (maximum is 255 characters)'];
    else if (!NAME.test(p.name)) errors.name = [NAME_RULE];
    if (p.description && p.description.length > DESCRIPTION_MAX) errors.description = [`is too long (maximum is ${DESCRIPTION_MAX} characters)`];
    if (!isValidPath(p.path)) errors.path = [PATH_RULE];
    if (ns.kind === 'group' && VISIBILITY_RANK[p.visibility] > VISIBILITY_RANK[ns.visibility as Visibility]) {
      errors.visibilityLevel = [`${p.visibility} is not allowed in a ${ns.visibility} group.`];
    }
    if (p.forkedFrom && VISIBILITY_RANK[p.visibility] > VISIBILITY_RANK[p.forkedFrom.visibility as Visibility]) {
      errors.visibilityLevel = [...(errors.visibilityLevel ?? []), `${p.visibility} is not allowed since the fork source project has lower visibility.`];
    }
    const clash = await clashing;
    if (clash.some((c) => c.path.toLowerCase() === p.path.toLowerCase())) errors.path = [...(errors.path ?? []), 'has already been taken'];
    if (clash.some((c) => c.name.toLowerCase() === p.name.toLowerCase())) errors.name = [...(errors.name ?? []), 'has already been taken'];
    return errors;
  }

  /** The projects `where` picks (those of one namespace) whose path or name is `p`'s, ignoring case, but `p` itself. */
  private clashes(where: Prisma.ProjectWhereInput, p: { name: string; path: string; exceptId?: number }): Promise<{ path: string; name: string }[]> {
    return this.base.db.project.findMany({
      where: { ...where, ...(p.exceptId ? { id: { not: p.exceptId } } : {}), OR: [{ path: equalsIgnoringCase(p.path) }, { name: equalsIgnoringCase(p.name) }] },
      select: { path: true, name: true },
    });
  }

  /**
   * `PUT /projects/:id`: Maintainers change settings; renaming and visibility need Owner (GitLab's rename_project and
   * change_visibility_level). A new path changes the full path and leaves a redirect from the old one.
   */
  async update(project: ProjectRow, input: ProjectUpdateInput): Promise<ProjectRow> {
    const { access, db, app } = this.base;
    await access.authorize('admin_project', project);
    const { features: featuresInput, ...settings } = input;
    const featureUpdate = featureChanges(featuresInput);
    const given = Object.entries(settings).filter(([, v]) => v !== undefined);
    if (!given.length && !Object.keys(featureUpdate).length) throw atLeastOneOf(...UPDATE_ARGUMENTS);
    const renaming = input.path != null && input.path !== project.path;
    if (input.name != null || renaming) await access.authorize('rename_project', project);
    if (input.visibility != null) await access.authorize('change_visibility_level', project);
    const name = input.name ?? project.name;
    const path = input.path ?? project.path;
    const visibility = input.visibility ?? (project.visibility as Visibility);
    const forkedFrom = project.forkedFromProjectId != null ? await this.base.loaders.projects.byId.load(project.forkedFromProjectId) : null;
    const errors = await this.placementErrors(project.namespace, { name, path, description: input.description, visibility, forkedFrom, exceptId: project.id });
    if (input.name === null) errors.name = ["can't be blank"];
    const avatarErrors = input.avatar ? avatarProblems(input.avatar) : [];
    if (avatarErrors.length) errors.avatar = avatarErrors;
    const features = { ...currentFeatureLevels(project), ...featureUpdate };
    if (Object.keys(featureUpdate).length) Object.assign(errors, featureErrors(features));
    if (input.sharedRunnersEnabled && !project.sharedRunnersEnabled && forbidsSharedRunners(project.namespace)) errors.sharedRunnersEnabled = [SHARED_RUNNERS_FORBIDDEN];
    Object.assign(errors, ciSettingsErrors(input), mergeSettingsErrors(input));
    if (Object.keys(errors).length) throw invalid(errors);

    const branch = input.defaultBranch;
    const newHead = branch != null && branch !== project.defaultBranch ? new Repository(await app.repositories.ensure(project, project.defaultBranch)) : null;
    // An empty repository has no branch to check yet: its HEAD names the branch its first push will create.
    if (newHead && branch != null && !project.emptyRepo && !(await newHead.resolve(`refs/heads/${branch}`))) {
      throw invalid({ base: [`Could not change HEAD: branch '${branch}' does not exist`] });
    }
    // readme_url follows the new default branch.
    const readme = newHead && branch != null && !project.emptyRepo ? readmePath(await newHead.tree(`refs/heads/${branch}`, '', false)) : undefined;
    const topics = input.topics ?? input.tagList;
    const fullPath = `${project.namespace.fullPath}/${path}`;
    await db.$transaction(async (tx) => {
      if (renaming) {
        await NamespacesService.releaseRedirects(tx, fullPath);
        await NamespacesService.recordRedirect(tx, { projectId: project.id }, project.fullPath);
      }
      await tx.project.update({
        where: { id: project.id },
        data: {
          name,
          path,
          fullPath,
          visibility,
          ...(input.description !== undefined ? { description: input.description } : {}),
          ...(branch != null ? { defaultBranch: branch } : {}),
          ...(readme !== undefined ? { readmePath: readme } : {}),
          ...(topics != null ? { topics: normalizeTopics(topics) } : {}),
          ...(input.ciConfigPath !== undefined ? { ciConfigPath: input.ciConfigPath || null } : {}),
          ...(input.requestAccessEnabled != null ? { requestAccessEnabled: input.requestAccessEnabled } : {}),
          ...(input.sharedRunnersEnabled != null ? { sharedRunnersEnabled: input.sharedRunnersEnabled } : {}),
          ...ciSettingsData(input),
          ...mergeSettingsData(input),
        },
        select: { id: true },
      });
      if (input.keepLatestArtifact != null) await storeKeepLatestArtifact(tx, project.id, input.keepLatestArtifact);
      if (input.avatar) await replaceAvatar(app.uploads, 'project', project.id, input.avatar, (avatar) => tx.project.update({ where: { id: project.id }, data: { avatar }, select: { id: true } }));
      const featuresChanged = Object.keys(featureUpdate).length > 0;
      if (featuresChanged) {
        await tx.projectFeature.upsert({ where: { projectId: project.id }, create: { projectId: project.id, ...features }, update: featureUpdate, select: { projectId: true } });
      }
      // Live subscriptions decide on the project's visibility and features: they must see the new ones.
      if (visibility !== project.visibility || featuresChanged) await this.projectsChanged([project.id], tx);
    });
    // Once the row says so: a failed update leaves HEAD as it was.
    if (newHead && branch != null) await newHead.setHeadBranch(branch);
    return this.reload(project.id);
  }

  /**
   * The CI/CD settings GraphQL's projectCiCdSettingsUpdate changes on the project (GitLab's Projects::UpdateService
   * under it): Maintainers, with `PUT /projects/:id`'s validations.
   */
  async updateCiSettings(project: ProjectRow, input: ProjectCiSettingsInput): Promise<ProjectRow> {
    await this.base.access.authorize('admin_project', project);
    const errors = ciSettingsErrors(input);
    if (Object.keys(errors).length) throw invalid(errors);
    const data = ciSettingsData(input);
    if (!Object.keys(data).length) return project;
    await this.base.db.project.update({ where: { id: project.id }, data, select: { id: true } });
    return this.reload(project.id);
  }

  /**
   * GitLab's ResetProjectCacheService ("Clear runner caches", GraphQL's runnerCacheClear): jobs_cache_index goes up
   * by one, so every cache key a job is given from now on differs from those already stored. Maintainers
   * (admin_pipeline).
   */
  async resetRunnerCache(project: ProjectRow): Promise<ProjectRow> {
    await this.base.access.authorize('admin_pipeline', project);
    await this.base.db.$executeRaw`UPDATE "projects" SET "jobsCacheIndex" = COALESCE("jobsCacheIndex", 0) + 1 WHERE "id" = ${project.id}`;
    return this.reload(project.id);
  }

  /** Announces, on commit of `tx`, that the projects' visibility, place or existence changed (src/auth/project-subjects.ts). */
  projectsChanged(projectIds: number[], tx: Prisma.TransactionClient): Promise<void> {
    const message: ProjectsChanged = { projectIds };
    return this.base.publish(PROJECTS_CHANGED, message, tx);
  }

  /** The row as it is now, past this request's loader cache. */
  async reload(projectId: number): Promise<ProjectRow> {
    const { loaders } = this.base;
    loaders.projects.byId.clear(projectId);
    const row = await loaders.projects.byId.load(projectId);
    if (!row) throw notFound('Project');
    return row;
  }

  /** `POST /projects/:id/archive` and `/unarchive` (Owners): an archived project is read-only. */
  async setArchived(project: ProjectRow, archived: boolean): Promise<ProjectRow> {
    await this.base.access.authorize('archive_project', project);
    if (project.archived !== archived) await this.base.db.project.update({ where: { id: project.id }, data: { archived }, select: { id: true } });
    return this.reload(project.id);
  }

  /**
   * `PUT /projects/:id/transfer` (GitLab's Projects::TransferService): the project's Owner moves it into a namespace
   * where they may create projects. Its visibility falls to the new group's when above it; the old full path
   * redirects. Repositories sit at hashed paths, so no bytes move.
   */
  async transfer(project: ProjectRow, target: Ref): Promise<ProjectRow> {
    const { access, db } = this.base;
    await access.authorize('change_namespace', project);
    const ns = await this.namespaces.lookup(target);
    if (!ns || !(await access.can('read_namespace', ns))) throw notFound('Namespace');
    const refuse = (message: string) => badRequest(`Failed to transfer project {:new_namespace=>[${JSON.stringify(message)}]}`);
    if (ns.id === project.namespaceId) throw refuse('Project is already in this namespace.');
    if (!(await access.can('create_projects', ns))) throw refuse("You don't have permission to transfer projects into that namespace.");
    const fullPath = `${ns.fullPath}/${project.path}`;
    const visibility = ns.kind === 'group' && VISIBILITY_RANK[project.visibility as Visibility] > VISIBILITY_RANK[ns.visibility as Visibility] ? ns.visibility : project.visibility;
    const memberIds = await db.$transaction(async (tx) => {
      const clash = await tx.project.findFirst({
        where: { namespaceId: ns.id, OR: [{ path: equalsIgnoringCase(project.path) }, { name: equalsIgnoringCase(project.name) }] },
        select: { id: true },
      });
      if (clash) throw refuse('Project with same name or path in target namespace already exists');
      await NamespacesService.releaseRedirects(tx, fullPath);
      await NamespacesService.recordRedirect(tx, { projectId: project.id }, project.fullPath);
      await tx.project.update({ where: { id: project.id }, data: { namespaceId: ns.id, fullPath, visibility }, select: { id: true } });
      await this.projectsChanged([project.id], tx);
      // A personal project's owner always holds Owner on it (GitLab's ensure_personal_project_owner_membership).
      if (ns.kind === 'user' && ns.ownerId != null) {
        const held = await tx.member.findUnique({ where: { userId_projectId: { userId: ns.ownerId, projectId: project.id } }, select: { id: true } });
        if (!held) await this.members.addCreator(tx, { projectId: project.id }, ns.ownerId);
      }
      return this.affectedUsers(tx, project, ns);
    });
    await this.base.publish(MEMBERSHIPS_CHANGED, { userIds: memberIds } satisfies MembershipsChanged);
    return this.reload(project.id);
  }

  /** Users whose remembered access to the project a move changes: its members and those of both namespaces. */
  private async affectedUsers(tx: Prisma.TransactionClient, project: ProjectRow, to: NamespaceRow): Promise<number[]> {
    const ids = [...project.namespace.traversalIds, ...to.traversalIds];
    const rows = await tx.member.findMany({ where: { OR: [{ projectId: project.id }, { namespaceId: { in: ids } }] }, select: { userId: true } });
    const owners = [project.namespace.ownerId, to.ownerId].filter((id): id is number => id != null);
    return [...new Set([...rows.map((r) => r.userId), ...owners])];
  }

  /**
   * `POST /projects/:id/fork` (GitLab's Projects::ForkService): a new project in a namespace where the viewer may
   * create projects (their own by default), named and described as the source unless told, no more visible than
   * it, holding a copy of its branches and tags (or of one branch). The copy is made before the answer, so the fork
   * is ready when it is shown.
   */
  async fork(source: ProjectRow, input: ForkInput): Promise<ProjectRow> {
    const { access } = this.base;
    const viewer = access.requireViewer();
    // GitLab's API answers `404 Not Found` to whoever may not fork (`not_found! unless can?(… :fork_project …)`).
    if (!(await access.can('fork_project', source))) throw notFound();
    if (input.branches != null && !(await this.branchExists(source, input.branches))) throw conflictFields({ base: [`Branch ${input.branches} does not exist`] });
    return this.createAs(
      viewer.id,
      {
        namespace: input.namespace ?? null,
        name: input.name ?? (input.path ? null : source.name),
        path: input.path ?? (input.name ? null : source.path),
        description: input.description !== undefined ? input.description : source.description,
        visibility: await this.forkVisibility(source, input, viewer.id),
        defaultBranch: input.branches ?? source.defaultBranch,
      },
      { source, branches: input.branches ?? null },
    );
  }

  /** GitLab's allowed_visibility_level: the lowest of the source's, the target group's and the one asked for. */
  private async forkVisibility(source: ProjectRow, input: ForkInput, viewerId: number): Promise<Visibility> {
    const ns = input.namespace ? await this.namespaces.lookup(input.namespace) : await this.base.loaders.namespaces.personalByOwnerId.load(viewerId);
    const levels = [source.visibility, ...(ns?.kind === 'group' ? [ns.visibility] : []), ...(input.visibility ? [input.visibility] : [])] as Visibility[];
    return levels.reduce((lowest, v) => (VISIBILITY_RANK[v] < VISIBILITY_RANK[lowest] ? v : lowest));
  }

  private async branchExists(project: ProjectRow, branch: string): Promise<boolean> {
    const { app } = this.base;
    if (!app.repositories.exists(project)) return false;
    return (await new Repository(app.repositories.path(project)).resolve(`refs/heads/${branch}`)) !== null;
  }

  /** `GET /projects/:id/forks`: the readable forks of a project, with the project list's filters. */
  forksOf(project: ProjectRow, filters: ProjectFilters, page: PageArgs) {
    return this.list({ ...filters, forkedFrom: project.id }, page);
  }

  /** The project this one was forked from, when the viewer may read it. */
  async forkedFrom(project: ProjectRow): Promise<ProjectRow | null> {
    return project.forkedFromProjectId == null ? null : this.find({ id: project.forkedFromProjectId });
  }

  /** `DELETE /projects/:id/fork` (Owners): the project stops being a fork; 304 when it was none. */
  async unlinkFork(project: ProjectRow): Promise<boolean> {
    await this.base.access.authorize('remove_fork_project', project);
    if (project.forkedFromProjectId == null) throw notModified();
    await this.base.db.project.update({ where: { id: project.id }, data: { forkedFromProjectId: null }, select: { id: true } });
    this.base.loaders.projects.byId.clear(project.id);
    return true;
  }

  /** `POST /projects/:id/fork/:forked_from_id` (administrators): records an existing project as a fork of another. */
  async linkFork(project: ProjectRow, sourceRef: Ref): Promise<ProjectRow> {
    const { access, db } = this.base;
    access.requireViewer();
    if (!access.allowed('admin_all_resources')) throw forbidden();
    const source = await this.find(sourceRef);
    if (!source) throw notFound('Source Project');
    await access.authorize('fork_project', source);
    if (project.forkedFromProjectId != null) throw conflict('Project already forked');
    if (source.id === project.id) throw conflict('Project already forked');
    await db.project.update({ where: { id: project.id }, data: { forkedFromProjectId: source.id }, select: { id: true } });
    return this.reload(project.id);
  }

  /**
   * `GET /projects/:id/users`: users who can see the project through a membership (of the project or its groups),
   * GitLab's `project.team.users`-based finder, minus `skipUsers`, searched by name or username.
   */
  async users(project: ProjectRow, filters: { search?: string | null; skipUsers?: readonly number[] | null }, page: PageArgs) {
    const { db } = this.base;
    const ownerId = project.namespace.ownerId;
    const and: Prisma.UserWhereInput[] = [
      {
        OR: [
          { memberships: { some: { OR: [{ projectId: project.id }, { namespaceId: { in: project.namespace.traversalIds } }] } } },
          ...(ownerId != null ? [{ id: ownerId }] : []),
        ],
      },
      { state: 'active' },
    ];
    if (filters.skipUsers?.length) and.push({ id: { notIn: [...filters.skipUsers] } });
    if (filters.search) and.push({ OR: [{ name: containsIgnoringCase(filters.search) }, { username: containsIgnoringCase(filters.search) }] });
    const where: Prisma.UserWhereInput = { AND: and };
    return connection(
      page,
      ({ skip, take }) => db.user.findMany({ where, orderBy: { id: 'asc' }, skip, take }),
      () => db.user.count({ where }),
    );
  }
}
