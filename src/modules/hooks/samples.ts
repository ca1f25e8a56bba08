/**
 * Push payloads from a repository (Gitlab::DataBuilder::Push): the real push's, built by the dispatch job from the
 * refs the push moved, and the samples of GitLab's TestHooks::ProjectService (the default branch's latest commits,
 * the latest tag).
 */
import { commitTitle, type Repository } from '../../git/repository.js';
import type { ProjectRow } from '../projects/service.js';
import type { HookTrigger } from './events.js';
import { projectSystemEvent, pushData, type HookCommit, type HookProject, type HookUser } from './payloads.js';
import type { TestTrigger } from './service.js';

const ZERO_SHA = '0000000000000000000000000000000000000000';
/** Git's empty tree. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
/** Commits a push payload lists at most (GitLab's PUSH_EVENT_COMMITS_LIMIT... DataBuilder::Push's 20). */
const COMMITS_LIMIT = 20;

export function hookProjectOf(project: ProjectRow): HookProject {
  return {
    id: project.id,
    name: project.name,
    path: project.path,
    fullPath: project.fullPath,
    description: project.description,
    visibility: project.visibility,
    namespaceId: project.namespaceId,
    namespaceName: project.namespace.name,
    defaultBranch: project.defaultBranch,
    ciConfigPath: project.ciConfigPath,
    createdAt: project.createdAt,
    updatedAt: project.updatedAt,
  };
}

async function hookCommits(repository: Repository, before: string, after: string): Promise<{ commits: HookCommit[]; total: number }> {
  if (after === ZERO_SHA) return { commits: [], total: 0 };
  const revision = before === ZERO_SHA ? after : `${before}..${after}`;
  const [infos, total] = await Promise.all([repository.log({ revision, skip: 0, max: COMMITS_LIMIT }), repository.countLog({ revision })]);
  const commits = await Promise.all(
    infos.map(async (c) => {
      // A root commit is compared with the empty tree: every file it has is added.
      const diffs = await repository.diff(c.parentIds[0] ?? EMPTY_TREE, c.sha);
      const added = diffs.filter((d) => d.newFile).map((d) => d.newPath);
      const removed = diffs.filter((d) => d.deletedFile).map((d) => d.oldPath);
      const modified = diffs.filter((d) => !d.newFile && !d.deletedFile).map((d) => d.newPath);
      return {
        id: c.sha,
        message: c.message,
        title: commitTitle(c.message),
        timestamp: new Date(c.authoredDate),
        authorName: c.authorName,
        authorEmail: c.authorEmail,
        added,
        modified,
        removed,
      };
    }),
  );
  return { commits, total };
}

/** A push's payload: `push` for a branch, `tag_push` for a tag. */
export async function buildPushData(input: { repository: Repository; project: ProjectRow; user: HookUser; ref: string; before: string; after: string; refProtected: boolean; externalUrl: string }) {
  const kind = input.ref.startsWith('refs/tags/') ? ('tag_push' as const) : ('push' as const);
  const { commits, total } = await hookCommits(input.repository, input.before, input.after);
  return pushData({ kind, project: hookProjectOf(input.project), user: input.user, ref: input.ref, before: input.before, after: input.after, refProtected: input.refProtected, commits, totalCommitsCount: total, externalUrl: input.externalUrl });
}

/** The pushing user as payloads show them. */
export function hookUserOf(user: { id: number; name: string; username: string; email: string }): HookUser {
  return { id: user.id, name: user.name, username: user.username, email: user.email };
}

/** A sample for a project hook's test (GitLab's TestHooks::ProjectService), or its message when there is nothing to build it from. */
export async function buildTestEvent(repository: Repository, project: ProjectRow, user: HookUser, trigger: TestTrigger, externalUrl: string): Promise<{ hookTrigger: HookTrigger; data: unknown } | { error: string }> {
  if (trigger === 'push_events') {
    const sha = project.defaultBranch ? await repository.resolve(`refs/heads/${project.defaultBranch}`) : null;
    if (!sha) return { error: 'Ensure the project has at least one commit.' };
    const data = await buildPushData({ repository, project, user, ref: `refs/heads/${project.defaultBranch}`, before: ZERO_SHA, after: sha, refProtected: false, externalUrl });
    return { hookTrigger: 'push_hooks', data };
  }
  const tags = await repository.refs('refs/tags/');
  const [ref, sha] = [...tags.entries()].sort(([a], [b]) => (a < b ? 1 : -1))[0] ?? [];
  if (!ref || !sha) return { error: 'Ensure the project has tags.' };
  const data = await buildPushData({ repository, project, user, ref, before: ZERO_SHA, after: sha, refProtected: false, externalUrl });
  return { hookTrigger: 'tag_push_hooks', data };
}

/**
 * SystemHooksService's project_create / project_destroy of a project row: its owner is the user of a personal
 * namespace, or the group (no e-mail address, as GitLab's payload for a group's project).
 */
export function projectSystemData(event: 'project_create' | 'project_destroy', project: ProjectRow) {
  const ns = project.namespace;
  const owners = ns.kind === 'user' && ns.owner ? [hookUserOf(ns.owner)] : [];
  const data = projectSystemEvent(event, hookProjectOf(project), owners);
  return ns.kind === 'user' ? data : { ...data, owner_name: ns.name, owner_email: '' };
}
