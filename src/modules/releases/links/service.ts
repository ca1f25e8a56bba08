/**
 * Owns a release's asset links (GitLab's Releases::Link and `lib/api/release/links.rb`): name, URL and direct asset
 * path unique within the release, a link type, newest first. Creating needs `create_release`, changing
 * `update_release`, deleting `destroy_release`; a release or link that is not there is `404 Not found`.
 */
import { atLeastOneOf, badRecordMessages, notFound, recordNotFound } from '../../../errors.js';
import { connection, type PageArgs } from '../../../graphql/connection.js';
import type { ServiceBase } from '../../module.js';
import type { ProjectRow } from '../../projects/service.js';
import type { ReleaseRow, ReleasesService } from '../service.js';
import { linkErrors, type LinkInput, type LinkRow } from './rules.js';

export interface LinkChanges {
  name?: string | null;
  url?: string | null;
  directAssetPath?: string | null;
  filepath?: string | null;
  linkType?: string | null;
}

/** A link with its release, for its URLs. */
export interface ReleaseLinkRow extends LinkRow {
  release: ReleaseRow;
}

const SORTED = [{ createdAt: 'desc' as const }, { id: 'desc' as const }];

export class ReleaseLinksService {
  constructor(
    private readonly base: ServiceBase,
    private readonly releases: ReleasesService,
  ) {}

  private get db() {
    return this.base.db;
  }

  /** A release's links, newest first (Releases::Link.sorted). */
  async list(project: ProjectRow, tag: string, page: PageArgs) {
    const release = await this.releases.require(project, tag);
    const where = { releaseId: release.id };
    return connection(
      page,
      async ({ skip, take }) => (await this.db.releaseLink.findMany({ where, orderBy: SORTED, skip, take })).map((l) => ({ ...l, release })),
      () => this.db.releaseLink.count({ where }),
    );
  }

  async get(project: ProjectRow, tag: string, id: number): Promise<ReleaseLinkRow> {
    const release = await this.releases.require(project, tag);
    const link = await this.db.releaseLink.findFirst({ where: { id, releaseId: release.id } });
    if (!link) throw recordNotFound();
    return { ...link, release };
  }

  private async others(releaseId: number, except?: number) {
    return this.db.releaseLink.findMany({ where: { releaseId, ...(except ? { id: { not: except } } : {}) }, select: { name: true, url: true, filepath: true, linkType: true } });
  }

  async create(project: ProjectRow, tag: string, input: LinkInput): Promise<ReleaseLinkRow> {
    const release = await this.releases.require(project, tag);
    await this.base.access.authorize('create_release', project);
    const draft = { name: input.name, url: input.url, filepath: input.directAssetPath ?? input.filepath ?? null, linkType: input.linkType ?? 'other' };
    const errors = linkErrors(draft, await this.others(release.id));
    if (errors.length) throw badRecordMessages(errors);
    const link = await this.db.releaseLink.create({ data: { releaseId: release.id, ...draft } });
    return { ...link, release };
  }

  async update(project: ProjectRow, tag: string, id: number, changes: LinkChanges): Promise<ReleaseLinkRow> {
    const link = await this.get(project, tag, id);
    await this.base.access.authorize('update_release', project);
    const filepath = changes.directAssetPath !== undefined && changes.directAssetPath !== null ? changes.directAssetPath : changes.filepath;
    if ([changes.name, changes.url, filepath, changes.linkType].every((v) => v === undefined || v === null)) {
      throw atLeastOneOf('name', 'url', 'filepath', 'directAssetPath', 'linkType');
    }
    const draft = {
      name: changes.name ?? link.name,
      url: changes.url ?? link.url,
      filepath: filepath === undefined || filepath === null ? link.filepath : filepath || null,
      linkType: changes.linkType ?? link.linkType,
    };
    const errors = linkErrors(draft, await this.others(link.releaseId, link.id));
    if (errors.length) throw badRecordMessages(errors);
    const updated = await this.db.releaseLink.update({ where: { id: link.id }, data: draft });
    return { ...updated, release: link.release };
  }

  async destroy(project: ProjectRow, tag: string, id: number): Promise<ReleaseLinkRow> {
    const link = await this.get(project, tag, id);
    await this.base.access.authorize('destroy_release', project);
    await this.db.releaseLink.delete({ where: { id: link.id } });
    return link;
  }

  /**
   * The link a download names by its direct asset path (`GET /releases/:tag_name/downloads/*path`), for readers of the
   * code: `404 Not Found` for a missing release, `404 Not found` for a missing link (GitLab's `find_by_filepath!`).
   */
  async download(project: ProjectRow, tag: string, filepath: string): Promise<LinkRow> {
    const release = await this.releases.find(project, tag, true);
    if (!release) throw notFound();
    const link = await this.db.releaseLink.findFirst({ where: { releaseId: release.id, filepath } });
    if (!link) throw recordNotFound();
    return link;
  }

  /** A link by its ID alone (GraphQL's `releaseAssetLinkUpdate`/`Delete`), with its release's project. */
  async locate(id: number): Promise<{ project: ProjectRow; tag: string } | null> {
    const row = await this.db.releaseLink.findUnique({ where: { id }, select: { release: { select: { projectId: true, tag: true } } } });
    if (!row) return null;
    const project = await this.base.loaders.projects.byId.load(row.release.projectId);
    return project && !project.pendingDelete && (await this.base.access.can('read_project', project)) ? { project, tag: row.release.tag } : null;
  }
}
