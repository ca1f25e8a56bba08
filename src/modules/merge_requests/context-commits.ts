/**
 * A merge request's context commits (GitLab's MergeRequestContextCommit, `lib/api/merge_requests.rb` and
 * MergeRequests::AddContextService): commits made before the merge request's own, added so reviewers see them. Each is
 * kept with what GitLab stores of it (author, committer, dates, message, trailers), so it reads back without the
 * repository; its parents are not kept, as GitLab's are not (`parent_ids` is null).
 *
 * Adding asks `update_merge_request`, refuses more than CONTEXT_COMMITS_POST_LIMIT shas, shas already added (matched
 * by prefix, as GitLab matches them) and shas the repository does not have; removing asks `destroy_merge_request`
 * and refuses shas the repository does not have.
 */
import { argumentRefused, badRequest, refused } from '../../errors.js';
import type { Prisma } from '../../db/database.js';
import type { Context } from '../../context.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import { iidOf, parseRef } from '../../graphql/ids.js';
import type { CommitInfo } from '../../git/repository.js';
import type { CommitRow } from '../repositories/reads.js';
import type { RepositoriesService } from '../repositories/service.js';
import type { ProjectRow } from '../projects/service.js';
import type { ServiceBase } from '../module.js';
import { mergeRequestSubject, type MergeRequestRow, type MergeRequestsService } from './service.js';

/** API::MergeRequests::CONTEXT_COMMITS_POST_LIMIT. */
export const CONTEXT_COMMITS_POST_LIMIT = 20;

/** A commit's object name, or an abbreviation of it (git's shortest is four digits). */
const OBJECT_NAME = /^[0-9a-f]{4,40}$/i;

const INVALID_SHA = "One or more context commits' sha is not valid.";

type ContextCommitRecord = Prisma.MergeRequestContextCommitGetPayload<true>;

/** A context commit as the Commit type shows it: no parents (GitLab does not keep them). */
export type ContextCommitRow = Omit<CommitRow, 'parentIds'> & { parentIds: null };

export class MergeRequestContextCommits {
  constructor(
    private readonly base: ServiceBase,
    private readonly mergeRequests: MergeRequestsService,
    private readonly repositories: RepositoriesService,
  ) {}

  /** The merge request's context commits in the order they were added, for whoever may read it. */
  list(project: ProjectRow, mr: MergeRequestRow, page: PageArgs) {
    const where = { mergeRequestId: mr.id };
    return connection(
      page,
      async ({ skip, take }) => (await this.base.db.mergeRequestContextCommit.findMany({ where, orderBy: { id: 'asc' }, skip, take })).map((c) => asCommit(project, c)),
      () => this.base.db.mergeRequestContextCommit.count({ where }),
    );
  }

  /** MergeRequests::AddContextService: the commits added, in the order asked, and the merge request. */
  async add(project: ProjectRow, iid: number, shas: readonly string[]): Promise<{ mergeRequest: MergeRequestRow; commits: ContextCommitRow[] }> {
    if (shas.length === 0) throw argumentRefused('commits', 'is empty');
    if (shas.length > CONTEXT_COMMITS_POST_LIMIT) throw badRequest(`Context commits array size should not be more than ${CONTEXT_COMMITS_POST_LIMIT}`);
    const mr = await this.mergeRequests.get(project, iid);
    if (!(await this.base.access.can('update_merge_request', mergeRequestSubject(project, mr)))) {
      throw refused('You are not allowed to access the requested resource');
    }
    const existing = await this.base.db.mergeRequestContextCommit.findMany({ where: { mergeRequestId: mr.id }, select: { sha: true }, orderBy: { id: 'asc' } });
    const duplicates = existing.map((c) => c.sha).filter((sha) => shas.some((given) => sha.startsWith(given)));
    if (duplicates.length) throw badRequest(`Context commits: ${rubyArray(duplicates)} are already created`);
    const commits = await this.resolve(project, shas);
    if (!commits) throw badRequest(INVALID_SHA);
    try {
      await this.base.db.mergeRequestContextCommit.createMany({
        data: commits.map((c, relativeOrder) => ({
          mergeRequestId: mr.id,
          sha: c.sha,
          relativeOrder,
          authorName: c.authorName,
          authorEmail: c.authorEmail,
          authoredDate: new Date(c.authoredDate),
          committerName: c.committerName,
          committerEmail: c.committerEmail,
          committedDate: new Date(c.committedDate),
          message: c.message,
          trailers: c.trailers,
        })),
      });
    } catch (error) {
      // Two requests adding the same commit at once: the later one is refused as a duplicate.
      if ((error as { code?: string }).code === 'P2002') throw badRequest(`Context commits: ${rubyArray(commits.map((c) => c.sha))} are already created`);
      throw error;
    }
    return { mergeRequest: mr, commits: commits.map((c) => ({ ...c, project, parentIds: null })) };
  }

  /** `DELETE …/context_commits`: the given commits are no longer context commits of the merge request. */
  async remove(project: ProjectRow, iid: number, shas: readonly string[]): Promise<MergeRequestRow> {
    if (shas.length === 0) throw argumentRefused('commits', 'is empty');
    const mr = await this.mergeRequests.get(project, iid);
    await this.base.access.authorize('destroy_merge_request', mergeRequestSubject(project, mr));
    const commits = await this.resolve(project, shas);
    if (!commits) throw badRequest(INVALID_SHA);
    await this.base.db.mergeRequestContextCommit.deleteMany({ where: { mergeRequestId: mr.id, sha: { in: commits.map((c) => c.sha) } } });
    return mr;
  }

  /** The repository's commits these object names (or abbreviations) name, each once; null when one names none. */
  private async resolve(project: ProjectRow, shas: readonly string[]): Promise<CommitInfo[] | null> {
    if (shas.some((sha) => !OBJECT_NAME.test(sha))) return null;
    if (project.emptyRepo) return shas.length ? null : [];
    const repository = await this.repositories.open(project);
    const found = await Promise.all(shas.map((sha) => repository.commit(sha)));
    if (found.some((c) => c === null)) return null;
    const unique = new Map((found as CommitInfo[]).map((c) => [c.sha, c]));
    return [...unique.values()];
  }
}

function asCommit(project: ProjectRow, c: ContextCommitRecord): ContextCommitRow {
  return {
    project,
    sha: c.sha,
    parentIds: null,
    authorName: c.authorName,
    authorEmail: c.authorEmail,
    authoredDate: c.authoredDate.toISOString(),
    committerName: c.committerName,
    committerEmail: c.committerEmail,
    committedDate: c.committedDate.toISOString(),
    message: c.message,
    trailers: (c.trailers ?? {}) as Record<string, string>,
    extendedTrailers: Object.fromEntries(Object.entries((c.trailers ?? {}) as Record<string, string>).map(([k, v]) => [k, [v]])),
  };
}

/** Ruby's Array#to_s of strings, as GitLab interpolates the duplicates into its message: `["a", "b"]`. */
function rubyArray(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(', ')}]`;
}

interface ContextCommitsInput {
  projectPath: string;
  iid: string;
  commits: string[];
}

/** `MergeRequest.contextCommits`, beside the merge request's other fields. */
export const contextCommitFields = {
  contextCommits: async (m: MergeRequestRow, args: PageArgs, ctx: Context) =>
    ctx.services.merge_requests.contextCommits.list(await ctx.services.merge_requests.projectOf(m), m, args),
};

/** The context commit mutations, beside the merge request's others. */
export const contextCommitMutations = {
  mergeRequestAddContextCommits: async (_: unknown, input: ContextCommitsInput, ctx: Context) => {
    const project = await ctx.services.projects.get(parseRef(input.projectPath, 'Project', 'projectPath'));
    return ctx.services.merge_requests.contextCommits.add(project, iidOf(input.iid), input.commits);
  },
  mergeRequestRemoveContextCommits: async (_: unknown, input: ContextCommitsInput, ctx: Context) => {
    const project = await ctx.services.projects.get(parseRef(input.projectPath, 'Project', 'projectPath'));
    return { mergeRequest: await ctx.services.merge_requests.contextCommits.remove(project, iidOf(input.iid), input.commits) };
  },
};
