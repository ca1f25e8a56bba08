/**
 * Owns releases (GitLab's Release): notes, milestones, asset links and evidence on a tag of the project's repository.
 * Creating one for a tag that does not exist creates the tag from `ref` through the repositories module (as an API
 * tag: push events, hooks and pipelines follow); deleting one leaves the tag. Each change reaches the project's
 * Release Hooks. Its asset links are ReleaseLinksService's (links/service.ts).
 */
import { commitTitle } from '../../git/repository.js';
import { createHash } from 'node:crypto';
import type { Prisma } from '../../db/database.js';
import { badRequest, conflict, forbidden, mutuallyExclusive, notFound, notFoundAs, unauthenticated, unprocessable } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import { enqueueHookEvent } from '../hooks/events.js';
import { releaseData } from '../hooks/payloads.js';
import { hookProjectOf } from '../hooks/samples.js';
import { evidenceIssues } from '../issues/loaders.js';
import type { ServiceBase } from '../module.js';
import type { ProjectRow } from '../projects/service.js';
import type { RepositoriesService } from '../repositories/service.js';
import { linkProblems, type LinkInput, type LinkRow } from './links/rules.js';
import { ReleaseLinksService } from './links/service.js';

export type ReleaseRecord = Prisma.ReleaseGetPayload<object>;
/** A release with its project, so its URLs and abilities need no lookup. */
export interface ReleaseRow extends ReleaseRecord {
  project: ProjectRow;
}

export interface ReleaseListFilters {
  orderBy?: 'released_at' | 'created_at' | null;
  sort?: 'asc' | 'desc' | null;
  updatedBefore?: Date | null;
  updatedAfter?: Date | null;
}

export interface ReleaseCreateInput {
  tagName: string;
  tagMessage?: string | null;
  ref?: string | null;
  name?: string | null;
  description?: string | null;
  releasedAt?: Date | null;
  milestones?: readonly string[] | null;
  milestoneIds?: readonly number[] | null;
  assets?: { links?: readonly LinkInput[] | null } | null;
}

export interface ReleaseUpdateInput {
  name?: string | null;
  description?: string | null;
  releasedAt?: Date | null;
  milestones?: readonly string[] | null;
  milestoneIds?: readonly number[] | null;
}

/** GitLab's Workhorse archive formats, in the order a release's sources list them. */
export const SOURCE_FORMATS = ['zip', 'tar.gz', 'tar.bz2', 'tar'] as const;

/** A release's web path: `<project>/-/releases/<tag>` (the tag one escaped path segment). */
export function releasePath(release: ReleaseRow): string {
  return `${release.project.fullPath}/-/releases/${encodeURIComponent(release.tag)}`;
}

/** Whether a release is yet to come (Release#upcoming_release?) or was made after the fact (historical_release?). */
export const isUpcoming = (r: ReleaseRecord, now = Date.now()) => Math.floor(r.releasedAt.getTime() / 1000) > Math.floor(now / 1000);
export const isHistorical = (r: ReleaseRecord) => Math.floor(r.releasedAt.getTime() / 1000) < Math.floor(r.createdAt.getTime() / 1000);

const ORDER_FIELD = { released_at: 'releasedAt', created_at: 'createdAt' } as const;

export class ReleasesService {
  readonly links: ReleaseLinksService;

  constructor(
    private readonly base: ServiceBase,
    private readonly repositories: RepositoriesService,
  ) {
    this.links = new ReleaseLinksService(base, this);
  }

  private get db() {
    return this.base.db;
  }

  private attach(project: ProjectRow, row: ReleaseRecord): ReleaseRow {
    return { ...row, project };
  }

  /** GitLab's `before { authorize_read_releases! }`: 403 for a reader of the project the releases are closed to. */
  async authorizeRead(project: ProjectRow): Promise<void> {
    await this.base.access.authorize('read_release', project);
  }

  /** Whether the viewer may read the project's code: the entity shows tag, commit, sources and evidence only then. */
  canReadCode(project: ProjectRow): Promise<boolean> {
    return this.base.access.can('download_code', project);
  }

  /** A tag's release as the Tags API shows it (Entities::TagRelease), to those who may read releases; null otherwise. */
  async ofTag(project: ProjectRow, tag: string): Promise<{ tag_name: string; description: string | null } | null> {
    if (!(await this.base.access.can('read_release', project))) return null;
    const release = await this.base.loaders.releases.byTag.load(`${project.id}:${tag}`);
    return release && { tag_name: release.tag, description: release.description };
  }

  /** Whether the entity may list the release's milestones (GitLab's `can_read_milestone?`). */
  canReadMilestones(project: ProjectRow): Promise<boolean> {
    return this.base.access.can('read_milestone', { project });
  }

  canUpdate(project: ProjectRow): Promise<boolean> {
    return this.base.access.can('update_release', project);
  }

  /** GitLab's `authorize!` of a write ability on a release: a release that is not there is refused as well (403). */
  private async authorizeWrite(ability: 'create_release' | 'update_release' | 'destroy_release', project: ProjectRow, release: unknown): Promise<void> {
    await this.authorizeRead(project);
    if (release === null) throw this.base.viewer ? forbidden() : unauthenticated();
    await this.base.access.authorize(ability, project);
  }

  /** ReleasesFinder: the project's releases, newest release date first by default, the id breaking ties. */
  async list(project: ProjectRow, filters: ReleaseListFilters, page: PageArgs) {
    await this.authorizeRead(project);
    const field = ORDER_FIELD[filters.orderBy ?? 'released_at'];
    const sort = filters.sort ?? 'desc';
    const where: Prisma.ReleaseWhereInput = {
      projectId: project.id,
      ...(filters.updatedBefore || filters.updatedAfter ? { updatedAt: { ...(filters.updatedBefore ? { lt: filters.updatedBefore } : {}), ...(filters.updatedAfter ? { gt: filters.updatedAfter } : {}) } } : {}),
    };
    return connection(
      page,
      async ({ skip, take }) => (await this.db.release.findMany({ where, orderBy: [{ [field]: sort }, { id: sort }], skip, take })).map((r) => this.attach(project, r)),
      () => this.db.release.count({ where }),
    );
  }

  /**
   * Releases::GroupReleasesFinder: the releases of the group's projects, its subgroups' included, whose releases the
   * viewer may read, by release date (newest first unless `asc`), the id breaking ties.
   */
  async listInGroup(group: { id: number }, sort: 'asc' | 'desc', page: PageArgs) {
    const projects: Prisma.ProjectWhereInput = { AND: [await this.base.access.where('read_release'), { pendingDelete: false, namespace: { traversalIds: { has: group.id } } }] };
    return this.pageAcrossProjects({ project: { is: projects } }, sort, page);
  }

  /** Milestone.releases: the releases of the milestone the viewer may read, newest release date first. */
  async ofMilestone(milestoneId: number, page: PageArgs) {
    const where: Prisma.ReleaseWhereInput = { milestones: { some: { milestoneId } }, project: { is: { AND: [await this.base.access.where('read_release'), { pendingDelete: false }] } } };
    return this.pageAcrossProjects(where, 'desc', page);
  }

  /** A page of releases of several projects by release date, each with its project (one batched load). */
  private pageAcrossProjects(where: Prisma.ReleaseWhereInput, sort: 'asc' | 'desc', page: PageArgs) {
    const { loaders } = this.base;
    return connection(
      page,
      async ({ skip, take }) => {
        const rows = await this.db.release.findMany({ where, orderBy: [{ releasedAt: sort }, { id: sort }], skip, take });
        const owners = await loaders.projects.byId.loadMany([...new Set(rows.map((r) => r.projectId))]);
        const byId = new Map(owners.flatMap((p) => (p && !(p instanceof Error) ? [[p.id, p] as const] : [])));
        return rows.flatMap((r) => {
          const project = byId.get(r.projectId);
          return project ? [this.attach(project, r)] : [];
        });
      },
      () => this.db.release.count({ where }),
    );
  }

  private async byTag(project: ProjectRow, tag: string): Promise<ReleaseRow | null> {
    const row = await this.db.release.findUnique({ where: { projectId_tag: { projectId: project.id, tag } } });
    return row && this.attach(project, row);
  }

  /**
   * The release of a tag; null when there is none. The REST API asks for the project's code first (GitLab's
   * `authorize_read_code!` in `GET /releases/:tag_name`) and answers a missing release 404; GraphQL's does neither.
   */
  async find(project: ProjectRow, tag: string, rest = this.base.rest !== undefined): Promise<ReleaseRow | null> {
    await this.authorizeRead(project);
    if (!rest) return this.byTag(project, tag);
    await this.base.access.authorize('download_code', project);
    const release = await this.byTag(project, tag);
    // GitLab's `not_found! unless release`: `404 Not Found`, not the route's `404 Project Not Found`.
    if (!release) throw notFound();
    return release;
  }

  /** The release a REST route names by tag (links, evidence): GitLab's `find_by_tag!`, `404 Not found` otherwise. */
  async require(project: ProjectRow, tag: string): Promise<ReleaseRow> {
    await this.authorizeRead(project);
    const release = await this.byTag(project, tag);
    if (!release) throw notFound();
    return release;
  }

  /** The latest release (`/releases/permalink/latest`): the newest by release date, for readers of the code. */
  async latest(project: ProjectRow): Promise<ReleaseRow> {
    await this.authorizeRead(project);
    await this.base.access.authorize('download_code', project);
    const row = await this.db.release.findFirst({ where: { projectId: project.id }, orderBy: [{ releasedAt: 'desc' }, { id: 'desc' }] });
    if (!row) throw notFound();
    return this.attach(project, row);
  }

  /** The project's milestones by title or ID, or GitLab's 400 naming those it does not have. */
  private async milestoneIds(project: ProjectRow, input: { milestones?: readonly string[] | null; milestoneIds?: readonly number[] | null }): Promise<number[] | null> {
    if (input.milestones != null && input.milestoneIds != null) throw mutuallyExclusive('milestones', 'milestoneIds');
    if (input.milestones != null) {
      const titles = [...new Set(input.milestones)];
      const found = titles.length ? await this.db.milestone.findMany({ where: { projectId: project.id, title: { in: titles } }, select: { id: true, title: true } }) : [];
      const missing = titles.filter((t) => !found.some((m) => m.title === t));
      if (missing.length) throw badRequest(`Milestone(s) not found: ${missing.join(', ')}`);
      return found.map((m) => m.id);
    }
    if (input.milestoneIds != null) {
      const ids = [...new Set(input.milestoneIds)];
      const found = ids.length ? await this.db.milestone.findMany({ where: { projectId: project.id, id: { in: ids } }, select: { id: true } }) : [];
      const missing = ids.filter((id) => !found.some((m) => m.id === id));
      if (missing.length) throw badRequest(`Milestone id(s) not found: ${missing.join(', ')}`);
      return ids;
    }
    return null;
  }

  /** The commit a tag names now; null when the tag is gone. */
  private async tagCommit(project: ProjectRow, tag: string): Promise<string | null> {
    return (await this.repositories.open(project)).resolve(`refs/tags/${tag}^{commit}`);
  }

  /**
   * Releases::CreateService: 409 for a tag that has a release, 400 for milestones the project lacks, the tag made from
   * `ref` (422 without one) when it does not exist, the links checked as the release's own, evidence collected for a
   * release of now (not an upcoming or historical one), and the project's Release Hooks told.
   */
  async create(project: ProjectRow, input: ReleaseCreateInput): Promise<ReleaseRow> {
    await this.authorizeRead(project);
    await this.base.access.authorize('create_release', project);
    const viewer = this.base.access.requireViewer();
    const tag = input.tagName;
    if (await this.byTag(project, tag)) throw conflict('Release already exists');
    const milestoneIds = await this.milestoneIds(project, input);
    const links = (input.assets?.links ?? []).map((l) => ({ name: l.name, url: l.url, filepath: l.directAssetPath ?? l.filepath ?? null, linkType: l.linkType ?? 'other' }));
    const problems = linkProblems(links);
    if (problems.length) throw badRequest(`Validation failed: ${problems.map((p) => `Links ${p}`).join(', ')}`);
    let sha = await this.tagCommit(project, tag);
    if (!sha) {
      if (!input.ref) throw unprocessable('Ref is not specified');
      sha = (await this.repositories.writes.createTag(project, tag, input.ref, input.tagMessage)).commit.sha;
    }
    const now = new Date();
    const created = await this.db.$transaction(async (tx) => {
      if (await tx.release.findUnique({ where: { projectId_tag: { projectId: project.id, tag } }, select: { id: true } })) throw conflict('Release already exists');
      const row = await tx.release.create({
        data: {
          projectId: project.id,
          tag,
          name: input.name || tag,
          description: input.description ?? null,
          authorId: viewer.id,
          sha,
          releasedAt: input.releasedAt ?? now,
          createdAt: now,
          links: { create: links },
          milestones: { create: (milestoneIds ?? []).map((milestoneId) => ({ milestoneId })) },
        },
      });
      const release = this.attach(project, row);
      if (!isUpcoming(row, now.getTime()) && !isHistorical(row)) await this.collect(tx, release);
      await this.hook(tx, release, 'create');
      return release;
    });
    return created;
  }

  /** Releases::UpdateService: the tag must still exist (404), something must change (400), milestones as on create. */
  async update(project: ProjectRow, tag: string, input: ReleaseUpdateInput): Promise<ReleaseRow> {
    const release = await this.byTag(project, tag);
    await this.authorizeWrite('update_release', project, release);
    if (!release || !(await this.tagCommit(project, tag))) throw notFoundAs('Tag does not exist');
    const given = (['name', 'description', 'releasedAt', 'milestones', 'milestoneIds'] as const).filter((k) => input[k] !== undefined && input[k] !== null);
    if (given.length === 0) throw badRequest('params is empty');
    const milestoneIds = await this.milestoneIds(project, input);
    return this.db.$transaction(async (tx) => {
      const row = await tx.release.update({
        where: { id: release.id },
        data: {
          ...(input.name != null ? { name: input.name } : {}),
          ...(input.description != null ? { description: input.description } : {}),
          ...(input.releasedAt != null ? { releasedAt: input.releasedAt } : {}),
          ...(milestoneIds ? { milestones: { deleteMany: {}, create: milestoneIds.map((milestoneId) => ({ milestoneId })) } } : {}),
        },
      });
      const updated = this.attach(project, row);
      await this.hook(tx, updated, 'update');
      return updated;
    });
  }

  /** Releases::DestroyService: the release goes, its tag stays. */
  async destroy(project: ProjectRow, tag: string): Promise<ReleaseRow> {
    const release = await this.byTag(project, tag);
    await this.authorizeWrite('destroy_release', project, release);
    if (!release || !(await this.tagCommit(project, tag))) throw notFoundAs('Tag does not exist');
    await this.db.$transaction(async (tx) => {
      await this.hook(tx, release, 'delete');
      await tx.release.delete({ where: { id: release.id } });
    });
    return release;
  }

  /** `POST /releases/:tag_name/evidence`: collects the release's evidence again (GitLab's CreateEvidenceWorker). */
  async createEvidence(project: ProjectRow, tag: string): Promise<number> {
    await this.authorizeRead(project);
    await this.base.access.authorize('create_release', project);
    const release = await this.byTag(project, tag);
    if (!release) throw notFound();
    await this.db.$transaction((tx) => this.collect(tx, release));
    // GitLab's endpoint ends in `status :accepted`, which Grape sends as the body too.
    return 202;
  }

  /**
   * Releases::Evidence's summary (Evidences::EvidenceEntity): the release, its project, and each milestone with its
   * issues, as JSON; its SHA-256 the evidence's `sha`.
   */
  private async collect(tx: Prisma.TransactionClient, release: ReleaseRow): Promise<void> {
    const links = await tx.releaseMilestone.findMany({ where: { releaseId: release.id }, include: { milestone: true } });
    const milestones = links.map((l) => l.milestone).sort((a, b) => a.id - b.id);
    const issues = await evidenceIssues(tx, milestones.map((m) => m.id));
    const summary = {
      release: {
        id: release.id,
        tag_name: release.tag,
        name: release.name,
        description: release.description,
        created_at: release.createdAt.toISOString(),
        project: { id: release.project.id, name: release.project.name, description: release.project.description, created_at: release.project.createdAt.toISOString() },
        milestones: milestones.map((m) => ({
          id: m.id,
          title: m.title,
          description: m.description,
          state: m.state,
          iid: m.iid,
          created_at: m.createdAt.toISOString(),
          due_date: m.dueDate ? m.dueDate.toISOString().slice(0, 10) : null,
          issues: issues.get(m.id) ?? [],
        })),
      },
    };
    const summarySha = createHash('sha256').update(JSON.stringify(summary)).digest('hex');
    await tx.releaseEvidence.create({ data: { releaseId: release.id, summary, summarySha } });
  }

  /** A Release Hook (Gitlab::DataBuilder::Release), queued in the change's transaction. */
  private async hook(tx: Prisma.TransactionClient, release: ReleaseRow, action: 'create' | 'update' | 'delete'): Promise<void> {
    const { externalUrl } = this.base.app.config;
    const links: LinkRow[] = await tx.releaseLink.findMany({ where: { releaseId: release.id }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
    const commit = release.sha ? await (await this.repositories.open(release.project)).commit(release.sha) : null;
    const data = releaseData({
      release,
      action,
      url: `${externalUrl}/${releasePath(release)}`,
      project: hookProjectOf(release.project),
      links: links.map((l) => ({ id: l.id, name: l.name, url: l.url, linkType: l.linkType, external: !l.url.startsWith(`${externalUrl}/${release.project.fullPath}/`) })),
      sources: SOURCE_FORMATS.map((format) => ({ format, url: sourceUrl(externalUrl, release, format) })),
      commit: commit && { id: commit.sha, message: commit.message, title: commitTitle(commit.message), timestamp: new Date(commit.committedDate), authorName: commit.authorName, authorEmail: commit.authorEmail },
      externalUrl,
    });
    await enqueueHookEvent(this.base.app.jobs, { trigger: 'release_hooks', projectId: release.project.id, branch: null, data }, tx);
  }
}

/** A source archive's URL (Releases::Source): `<project>/-/archive/<tag>/<path>-<tag>.<format>`, slashes of the tag as dashes in the name. */
export function sourceUrl(externalUrl: string, release: ReleaseRow, format: string): string {
  const prefix = `${release.project.path}-${release.tag.replace(/\//g, '-')}`;
  return `${externalUrl}/${release.project.fullPath}/-/archive/${release.tag.split('/').map(encodeURIComponent).join('/')}/${encodeURIComponent(prefix)}.${format}`;
}
