/** GraphQL resolvers of releases and their asset links; the REST routes run through them too. */
import type { Context } from '../../context.js';
import { notFound } from '../../errors.js';
import { listConnection, type PageArgs } from '../../graphql/connection.js';
import { globalId, parseRef } from '../../graphql/ids.js';
import { webUrl } from '../../graphql/resolvers.js';
import { renderMarkdown } from '../../markdown.js';
import type { MilestoneRow } from '../milestones/service.js';
import type { ProjectRow } from '../projects/service.js';
import type { RefRow } from '../repositories/reads.js';
import type { LinkChanges, ReleaseLinkRow } from './links/service.js';
import type { LinkInput } from './links/rules.js';
import type { EvidenceRow } from './loaders.js';
import { isHistorical, isUpcoming, releasePath, sourceUrl, SOURCE_FORMATS, type ReleaseCreateInput, type ReleaseRow, type ReleaseUpdateInput } from './service.js';

type Sort = 'created_desc' | 'created_asc' | 'released_at_desc' | 'released_at_asc';
interface ListArgs extends PageArgs {
  sort?: Sort | null;
  orderBy?: 'released_at' | 'created_at' | null;
  direction?: 'ASC' | 'DESC' | null;
  updatedBefore?: Date | null;
  updatedAfter?: Date | null;
}
interface ReleaseKey {
  projectPath: string;
  tagName: string;
}
interface LinkKey {
  id: number;
  projectPath?: string | null;
  tagName?: string | null;
}

const project = (ctx: Context, path: string) => ctx.services.projects.get(parseRef(path, 'Project', 'projectPath'));
const readsCode = (r: ReleaseRow, ctx: Context) => ctx.services.releases.canReadCode(r.project);

/** The project and tag of the link a mutation names, checked against the REST path's when it gives them. */
async function linkOwner(ctx: Context, key: LinkKey): Promise<{ project: ProjectRow; tag: string }> {
  const owner = await ctx.services.releases.links.locate(key.id);
  if (key.projectPath != null) {
    const named = await project(ctx, key.projectPath);
    const tag = key.tagName ?? owner?.tag ?? '';
    // The REST path names the release: a link of another release is not found there.
    if (!owner || owner.project.id !== named.id || owner.tag !== tag) {
      await ctx.services.releases.require(named, tag);
      throw notFound();
    }
  }
  if (!owner) throw notFound('ReleasesLink');
  return owner;
}

/** An issues or merge requests page of the release's tag (ReleasePresenter#params_for_issues_and_mrs). */
function listUrl(r: ReleaseRow, ctx: Context, page: 'issues' | 'merge_requests', state: string): string {
  return webUrl(ctx, `${r.project.fullPath}/-/${page}?release_tag=${encodeURIComponent(r.tag)}&scope=all&state=${state}`);
}

export const releaseResolvers = {
  Project: {
    releases: (p: ProjectRow, args: ListArgs, ctx: Context) => {
      const sort = args.sort ?? 'released_at_desc';
      const orderBy = args.orderBy ?? (sort.startsWith('created') ? 'created_at' : 'released_at');
      const direction = args.direction ? (args.direction.toLowerCase() as 'asc' | 'desc') : sort.endsWith('asc') ? 'asc' : 'desc';
      return ctx.services.releases.list(p, { orderBy, sort: direction, updatedBefore: args.updatedBefore, updatedAfter: args.updatedAfter }, args);
    },
    release: (p: ProjectRow, args: { tagName: string }, ctx: Context) => ctx.services.releases.find(p, args.tagName),
    latestRelease: (p: ProjectRow, _a: unknown, ctx: Context) => ctx.services.releases.latest(p),
    releaseAssetLinks: (p: ProjectRow, args: PageArgs & { tagName: string }, ctx: Context) => ctx.services.releases.links.list(p, args.tagName, args),
    releaseAssetLink: (p: ProjectRow, args: { tagName: string; id: number }, ctx: Context) => ctx.services.releases.links.get(p, args.tagName, args.id),
  },
  Release: {
    id: (r: ReleaseRow) => globalId('Release', r.id),
    tagName: async (r: ReleaseRow, _a: unknown, ctx: Context) => ((await readsCode(r, ctx)) ? r.tag : null),
    tagPath: async (r: ReleaseRow, _a: unknown, ctx: Context) => ((await readsCode(r, ctx)) ? `/${r.project.fullPath}/-/tags/${encodeURIComponent(r.tag)}` : null),
    commitPath: async (r: ReleaseRow, _a: unknown, ctx: Context) => (r.sha && (await readsCode(r, ctx)) ? `/${r.project.fullPath}/-/commit/${r.sha}` : null),
    descriptionHtml: (r: ReleaseRow, _a: unknown, ctx: Context) => (r.description ? renderMarkdown(r.description, { users: new Map(), numbered: new Map(), externalUrl: ctx.config.externalUrl }) : ''),
    upcomingRelease: (r: ReleaseRow) => isUpcoming(r),
    historicalRelease: (r: ReleaseRow) => isHistorical(r),
    author: (r: ReleaseRow, _a: unknown, ctx: Context) => (r.authorId === null ? null : ctx.loaders.users.byId.load(r.authorId)),
    commit: async (r: ReleaseRow, _a: unknown, ctx: Context) => (r.sha && (await readsCode(r, ctx)) ? ctx.services.repositories.reads.commit(r.project, r.sha) : null),
    assets: (r: ReleaseRow) => r,
    links: (r: ReleaseRow) => r,
    milestones: async (r: ReleaseRow, args: PageArgs, ctx: Context) => listConnection(args, await ctx.loaders.releases.milestones.load(r.id)),
    milestoneList: async (r: ReleaseRow, _a: unknown, ctx: Context) => {
      const milestones = await ctx.loaders.releases.milestones.load(r.id);
      return milestones.length && (await ctx.services.releases.canReadMilestones(r.project)) ? milestones : null;
    },
    evidences: async (r: ReleaseRow, args: PageArgs, ctx: Context) =>
      (await readsCode(r, ctx)) ? listConnection(args, (await ctx.loaders.releases.evidences.load(r.id)).map((e) => ({ ...e, release: r }))) : null,
  },
  ReleaseAssets: {
    count: async (r: ReleaseRow, _a: unknown, ctx: Context) => (await ctx.loaders.releases.links.load(r.id)).length + ((await readsCode(r, ctx)) ? SOURCE_FORMATS.length : 0),
    links: async (r: ReleaseRow, args: PageArgs, ctx: Context) => listConnection(args, (await ctx.loaders.releases.links.load(r.id)).map((l) => ({ ...l, release: r }))),
    sources: async (r: ReleaseRow, args: PageArgs, ctx: Context) =>
      (await readsCode(r, ctx)) ? listConnection(args, SOURCE_FORMATS.map((format) => ({ format, url: sourceUrl(ctx.config.externalUrl, r, format) }))) : null,
  },
  ReleaseAssetLink: {
    id: (l: ReleaseLinkRow) => globalId('Releases::Link', l.id),
    databaseId: (l: ReleaseLinkRow) => l.id,
    directAssetPath: (l: ReleaseLinkRow) => l.filepath,
    external: (l: ReleaseLinkRow, _a: unknown, ctx: Context) => !l.url.startsWith(webUrl(ctx, `${l.release.project.fullPath}/`)),
    directAssetUrl: (l: ReleaseLinkRow, _a: unknown, ctx: Context) => (l.filepath ? `${webUrl(ctx, releasePath(l.release))}/downloads${l.filepath}` : l.url),
  },
  ReleaseEvidence: {
    id: (e: EvidenceRow) => globalId('Releases::Evidence', e.id),
    sha: (e: EvidenceRow) => e.summarySha,
    filepath: (e: EvidenceRow & { release: ReleaseRow }, _a: unknown, ctx: Context) => `${webUrl(ctx, releasePath(e.release))}/evidences/${e.id}.json`,
    collectedAt: (e: EvidenceRow) => e.createdAt,
  },
  ReleaseLinks: {
    selfUrl: (r: ReleaseRow, _a: unknown, ctx: Context) => webUrl(ctx, releasePath(r)),
    editUrl: async (r: ReleaseRow, _a: unknown, ctx: Context) => ((await ctx.services.releases.canUpdate(r.project)) ? `${webUrl(ctx, releasePath(r))}/edit` : null),
    openedIssuesUrl: (r: ReleaseRow, _a: unknown, ctx: Context) => listUrl(r, ctx, 'issues', 'opened'),
    closedIssuesUrl: (r: ReleaseRow, _a: unknown, ctx: Context) => listUrl(r, ctx, 'issues', 'closed'),
    openedMergeRequestsUrl: (r: ReleaseRow, _a: unknown, ctx: Context) => listUrl(r, ctx, 'merge_requests', 'opened'),
    closedMergeRequestsUrl: (r: ReleaseRow, _a: unknown, ctx: Context) => listUrl(r, ctx, 'merge_requests', 'closed'),
    mergedMergeRequestsUrl: (r: ReleaseRow, _a: unknown, ctx: Context) => listUrl(r, ctx, 'merge_requests', 'merged'),
  },
  ReleaseAssetLinkType: { OTHER: 'other', RUNBOOK: 'runbook', PACKAGE: 'package', IMAGE: 'image' },
  GroupReleaseSort: { RELEASED_AT_ASC: 'asc', RELEASED_AT_DESC: 'desc' },
  Group: {
    releases: (g: { id: number }, args: { sort?: 'asc' | 'desc' | null } & PageArgs, ctx: Context) => ctx.services.releases.listInGroup(g, args.sort ?? 'desc', args),
  },
  ReleaseSort: { CREATED_DESC: 'created_desc', CREATED_ASC: 'created_asc', RELEASED_AT_DESC: 'released_at_desc', RELEASED_AT_ASC: 'released_at_asc' },
  Tag: {
    release: (tag: RefRow, _a: unknown, ctx: Context) => ctx.services.releases.ofTag(tag.project, tag.name),
  },
  Milestone: {
    stats: async (m: MilestoneRow, _a: unknown, ctx: Context) => {
      const stats = await ctx.loaders.issues.statsByMilestone.load(m.id);
      return { totalIssuesCount: stats.total, closedIssuesCount: stats.closed };
    },
  },
  Mutation: {
    releaseCreate: async (_: unknown, input: ReleaseKey & ReleaseCreateInput, ctx: Context) => ({ release: await ctx.services.releases.create(await project(ctx, input.projectPath), input) }),
    releaseUpdate: async (_: unknown, input: ReleaseKey & ReleaseUpdateInput, ctx: Context) => ({
      release: await ctx.services.releases.update(await project(ctx, input.projectPath), input.tagName, input),
    }),
    releaseDelete: async (_: unknown, input: ReleaseKey, ctx: Context) => ({ release: await ctx.services.releases.destroy(await project(ctx, input.projectPath), input.tagName) }),
    releaseEvidenceCreate: async (_: unknown, input: ReleaseKey, ctx: Context) => ({ status: await ctx.services.releases.createEvidence(await project(ctx, input.projectPath), input.tagName) }),
    releaseAssetLinkCreate: async (_: unknown, input: ReleaseKey & LinkInput, ctx: Context) => ({
      link: await ctx.services.releases.links.create(await project(ctx, input.projectPath), input.tagName, input),
    }),
    releaseAssetLinkUpdate: async (_: unknown, input: LinkKey & LinkChanges, ctx: Context) => {
      const owner = await linkOwner(ctx, input);
      return { link: await ctx.services.releases.links.update(owner.project, owner.tag, input.id, input) };
    },
    releaseAssetLinkDelete: async (_: unknown, input: LinkKey, ctx: Context) => {
      const owner = await linkOwner(ctx, input);
      return { link: await ctx.services.releases.links.destroy(owner.project, owner.tag, input.id) };
    },
  },
};
