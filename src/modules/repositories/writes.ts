/**
 * Writing a project's code through the API: commits of file actions (GitLab's Files::MultiService), the files
 * API's one-file commits, branches and tags. Objects are written first, then the ref moves with its expected old
 * value (git compares under the ref's lock), so two writers racing for one branch serialize: one wins, the other
 * gets GitLab's 400, and a killed process leaves only unreferenced objects. Every ref change ends in `refsUpdated`.
 */
import { badRequest, forbidden, methodNotAllowed, mutuallyExclusive, notFound, payloadTooLarge } from '../../errors.js';
import { isObjectName, ZERO_SHA, type IndexChange, type Repository, type Signature, type TreeEntry } from '../../git/repository.js';
import type { ServiceBase } from '../module.js';
import type { ProjectRow } from '../projects/service.js';
import { checkedActionPath, checkedPath } from './paths.js';
import type { CommitRow, RefRow } from './reads.js';
import { PUSH_ERRORS, type RepositoriesService } from './service.js';

export type CommitActionKind = 'CREATE' | 'UPDATE' | 'DELETE' | 'MOVE' | 'CHMOD';

export interface CommitActionInput {
  action: CommitActionKind;
  filePath: string;
  previousPath?: string | null;
  content?: string | null;
  encoding?: 'TEXT' | 'BASE64' | null;
  lastCommitId?: string | null;
  executeFilemode?: boolean | null;
}

export interface CommitInput {
  branch: string;
  commitMessage: string;
  startBranch?: string | null;
  startSha?: string | null;
  actions: CommitActionInput[];
  authorName?: string | null;
  authorEmail?: string | null;
  force?: boolean | null;
}

export interface FileWriteInput {
  filePath: string;
  branch: string;
  commitMessage: string;
  content?: string | null;
  encoding?: 'TEXT' | 'BASE64' | null;
  startBranch?: string | null;
  lastCommitId?: string | null;
  executeFilemode?: boolean | null;
  authorName?: string | null;
  authorEmail?: string | null;
}

const FILE_MODE = '100644';
const EXECUTABLE_MODE = '100755';
const DOESNT_EXIST = "A file with this name doesn't exist";
const ALREADY_EXISTS = 'A file with this name already exists';
/** The commits API words a stale `last_commit_id` per file; the files API (PUT) has its own sentence. */
const fileChanged = (path: string) => `The file has changed since you started editing it: ${path}`;
const FILE_CHANGED_SINCE_EDITING = 'You are attempting to update a file that has changed since you started editing it.';

/** Every directory above a path (`a/b/c` → `a`, `a/b`). */
function ancestors(path: string): string[] {
  const parts = path.split('/');
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/'));
}

/** GitLab's ref-name rule (Gitlab::GitRefValidator): git's own format, and no `-` start, `HEAD` or `refs/` prefix. */
async function validName(repository: Repository, kind: 'heads' | 'tags', name: string): Promise<boolean> {
  if (!name || name.startsWith('-') || name === 'HEAD' || name.startsWith('refs/')) return false;
  return repository.validRefName(`refs/${kind}/${name}`);
}

type FileState = { mode: string; sha: string } | null;

export class RepositoryWrites {
  constructor(
    private readonly base: ServiceBase,
    private readonly repositories: RepositoriesService,
  ) {}

  /**
   * API writes are authorized twice, as GitLab's are: here for the repository as a whole (`authorizeWrite`:
   * Developer and above, not archived, not read-only), then per ref in `moveRef` by the same rules as a git push.
   */
  private async authorize(project: ProjectRow): Promise<{ repository: Repository; user: Signature & { id: number } }> {
    // GitLab's `authorize_push_project`: a plain 403 below Developer and on an archived project (ProjectPolicy's
    // archived rule prevents `push_code`); then read-only with its reason.
    await this.repositories.authorizeRead(project);
    await this.base.access.authorize('push_code', project);
    await this.repositories.authorizeWrite(project);
    const viewer = this.base.viewer;
    const user = viewer && (await this.base.loaders.users.byId.load(viewer.id));
    if (!user) throw notFound('Project');
    return { repository: await this.repositories.open(project), user: { id: user.id, name: user.name, email: user.email } };
  }

  /** Moves one ref or answers GitLab's 400 for a ref that moved meanwhile, then records the change. */
  async moveRef(project: ProjectRow, repository: Repository, userId: number, ref: string, after: string, before: string, refused: string, fastForward = false) {
    // Protected branches, force pushes (a forced commit onto a moved branch), the default branch: as for git pushes.
    await this.repositories.authorizeRefUpdate(project, { ref, before, after }, { web: true, fastForward });
    if (!(await repository.updateRef(ref, after, before))) throw badRequest(refused);
    await this.repositories.refsUpdated(project, userId, [{ ref, before, after }]);
  }

  /** The bytes an action writes: text as UTF-8, base64 decoded; 413 beyond COMMIT_MAX_FILE_SIZE. */
  private decode(content: string, encoding: 'TEXT' | 'BASE64' | null | undefined): Buffer {
    const bytes = encoding === 'BASE64' ? Buffer.from(content, 'base64') : Buffer.from(content, 'utf8');
    if (bytes.length > this.base.app.config.commitMaxFileSize) throw payloadTooLarge();
    return bytes;
  }

  /**
   * `initialize_with_readme` of a new project (GitLab's Projects::CreateService): a README.md naming the project
   * (and its description) as the first commit of the default branch, by the creating user.
   */
  async initializeWithReadme(project: ProjectRow): Promise<void> {
    const content = project.description ? `# ${project.name}\n\n${project.description}\n` : `# ${project.name}\n`;
    await this.createCommit(project, { branch: project.defaultBranch, commitMessage: 'Initial commit', actions: [{ action: 'CREATE', filePath: 'README.md', content }] });
  }

  /**
   * GitLab's `POST /projects/:id/repository/commits`: one commit of every action, on `branch`. Whoever may not push
   * into the branch is refused as GitLab's Commits::CreateService refuses them (a 400 from the files API, an entry in
   * `errors` from GraphQL); `api: 'commits'` is the commits API, which asks first (`authorize_push_to_branch!`, 403).
   */
  async createCommit(project: ProjectRow, input: CommitInput, options: { fileChanged?: (path: string) => string; api?: 'commits' } = {}): Promise<CommitRow> {
    if (options.api === 'commits') {
      await this.repositories.authorizeRead(project);
      if (!(await this.repositories.canPushToBranch(project, input.branch))) throw forbidden(PUSH_ERRORS.pushIntoBranch);
    }
    const { repository, user } = await this.authorize(project);
    if (!(await this.repositories.canPushToBranch(project, input.branch))) throw badRequest(PUSH_ERRORS.pushIntoBranch);
    if (input.startBranch != null && input.startSha != null) throw mutuallyExclusive('startBranch', 'startSha');
    if (!input.commitMessage.trim()) throw badRequest('commit_message is required');
    if (input.actions.length === 0) throw badRequest('actions is required');
    const ref = `refs/heads/${input.branch}`;
    if (!(await validName(repository, 'heads', input.branch))) throw badRequest(`Something went wrong when we tried to create '${input.branch}' for you: Branch name is invalid`);
    const startBranch = input.startBranch ?? (input.startSha ? null : input.branch);
    const current = await repository.resolve(ref);
    const startTip = startBranch === null ? null : startBranch === input.branch ? current : await repository.resolve(`refs/heads/${startBranch}`);
    // A branch that exists says the repository is not empty without asking git.
    const empty = current === null && startTip === null && (await repository.isEmpty());
    let parent: string | null = null;
    if (input.startSha != null) {
      if (!isObjectName(input.startSha)) throw badRequest(`Invalid start_sha '${input.startSha}'`);
      parent = await repository.resolve(`${input.startSha}^{commit}`);
      if (!parent) throw badRequest(`Cannot find start_sha '${input.startSha}'`);
    } else if (startBranch !== null && !empty) {
      parent = startTip;
      if (!parent) throw badRequest('You can only create or edit files when you are on a branch');
    }
    const differentBranch = startBranch !== input.branch || input.startSha != null;
    if (!empty && differentBranch && current && !input.force) {
      throw badRequest(`A branch called '${input.branch}' already exists. Switch to that branch in order to make changes`);
    }
    const changes = await this.applyActions(repository, parent, input.actions, options.fileChanged ?? fileChanged);
    const tree = await repository.writeTree(parent, changes);
    const author = { name: input.authorName || user.name, email: input.authorEmail || user.email };
    const sha = await repository.commitTree(tree, parent ? [parent] : [], input.commitMessage, author, user);
    // Read before the ref moves: what records the push (its title) and the answer share this one git run.
    const commit = await repository.commit(sha);
    if (!commit) throw notFound('Commit');
    const fastForward = current !== null && parent === current;
    await this.moveRef(project, repository, user.id, ref, sha, current ?? ZERO_SHA, `Could not update ${ref}. Please refresh and try again.`, fastForward);
    return { ...commit, project };
  }

  /** Checks each action against the tree as the earlier actions left it, and writes the blobs they add. */
  private async applyActions(repository: Repository, parent: string | null, actions: readonly CommitActionInput[], changedMessage: (path: string) => string): Promise<IndexChange[]> {
    const paths = actions.flatMap((a) => [checkedActionPath(a.filePath), ...(a.action === 'MOVE' && a.previousPath ? [checkedActionPath(a.previousPath)] : [])]);
    const known = parent ? await repository.entries(parent, [...new Set(paths.flatMap((p) => [p, ...ancestors(p)]))]) : new Map<string, TreeEntry>();
    const state = new Map<string, FileState>();
    const at = (path: string): FileState | 'tree' => {
      if (state.has(path)) return state.get(path) ?? null;
      const entry = known.get(path);
      if (!entry) return null;
      return entry.type === 'tree' ? 'tree' : { mode: entry.mode, sha: entry.sha };
    };
    const requireFile = (path: string): { mode: string; sha: string } => {
      const file = at(path);
      if (file === null || file === 'tree') throw badRequest(DOESNT_EXIST);
      return file;
    };
    const requireFree = (path: string) => {
      const file = at(path);
      if (file === 'tree') throw badRequest('A directory with this name already exists');
      if (file !== null) throw badRequest(ALREADY_EXISTS);
      const blocked = ancestors(path).find((dir) => { const d = at(dir); return d !== null && d !== 'tree'; });
      if (blocked) throw badRequest(`A file with this name already exists: ${blocked}`);
    };
    const checkUnchanged = async (path: string, lastCommitId: string | null | undefined) => {
      if (!lastCommitId || !parent) return;
      if ((await repository.lastCommitFor(parent, path)) !== lastCommitId) throw badRequest(changedMessage(path));
    };
    const blob = async (content: string | null | undefined, encoding: CommitActionInput['encoding']) => repository.writeBlob(this.decode(content ?? '', encoding));
    for (const a of actions) {
      const mode = (fallback: string) => (a.executeFilemode == null ? fallback : a.executeFilemode ? EXECUTABLE_MODE : FILE_MODE);
      switch (a.action) {
        case 'CREATE':
          requireFree(a.filePath);
          state.set(a.filePath, { mode: mode(FILE_MODE), sha: await blob(a.content, a.encoding) });
          break;
        case 'UPDATE': {
          if (a.content == null) throw badRequest(`actions[${actions.indexOf(a)}][content] is required for update action`);
          const file = requireFile(a.filePath);
          await checkUnchanged(a.filePath, a.lastCommitId);
          state.set(a.filePath, { mode: mode(file.mode), sha: await blob(a.content, a.encoding) });
          break;
        }
        case 'DELETE':
          requireFile(a.filePath);
          await checkUnchanged(a.filePath, a.lastCommitId);
          state.set(a.filePath, null);
          break;
        case 'MOVE': {
          if (!a.previousPath) throw badRequest(`actions[${actions.indexOf(a)}][previous_path] is required for move action`);
          const file = requireFile(a.previousPath);
          await checkUnchanged(a.previousPath, a.lastCommitId);
          state.set(a.previousPath, null);
          requireFree(a.filePath);
          state.set(a.filePath, { mode: mode(file.mode), sha: a.content == null ? file.sha : await blob(a.content, a.encoding) });
          break;
        }
        case 'CHMOD': {
          if (a.executeFilemode == null) throw badRequest(`actions[${actions.indexOf(a)}][execute_filemode] is required for chmod action`);
          const file = requireFile(a.filePath);
          await checkUnchanged(a.filePath, a.lastCommitId);
          state.set(a.filePath, { mode: mode(file.mode), sha: file.sha });
          break;
        }
      }
    }
    return [...state].map(([path, file]) => (file ? { path, ...file } : { path, remove: true as const }));
  }

  /** The files API's one-file commits (`POST`, `PUT`, `DELETE /repository/files/:file_path`). */
  async writeFile(project: ProjectRow, action: 'CREATE' | 'UPDATE' | 'DELETE', input: FileWriteInput): Promise<{ filePath: string; branch: string }> {
    const filePath = checkedPath(input.filePath, 'filePath');
    await this.createCommit(
      project,
      {
        branch: input.branch,
        commitMessage: input.commitMessage,
        startBranch: input.startBranch,
        authorName: input.authorName,
        authorEmail: input.authorEmail,
        actions: [{ action, filePath, content: input.content, encoding: input.encoding, lastCommitId: input.lastCommitId, executeFilemode: input.executeFilemode }],
      },
      { fileChanged: () => FILE_CHANGED_SINCE_EDITING },
    );
    return { filePath, branch: input.branch };
  }

  /**
   * GitLab's `POST /repository/branches` (Branches::CreateService): `branch` at the commit `ref` names. An empty
   * repository first gets its default branch, with an empty README.md, so the new branch has something to start from.
   */
  async createBranch(project: ProjectRow, name: string, revision: string): Promise<RefRow> {
    const { repository, user } = await this.authorize(project);
    if (await repository.isEmpty()) {
      await this.createCommit(project, { branch: project.defaultBranch, commitMessage: 'Add README.md', actions: [{ action: 'CREATE', filePath: 'README.md', content: '' }] });
    }
    const ref = `refs/heads/${name}`;
    if (!(await validName(repository, 'heads', name))) throw badRequest('Branch name is invalid');
    if (await repository.resolve(ref)) throw badRequest('Branch already exists');
    const sha = await repository.resolve(`${revision}^{commit}`);
    if (!sha) throw badRequest(`Failed to create branch '${name}': invalid reference name '${revision}'`);
    await this.moveRef(project, repository, user.id, ref, sha, ZERO_SHA, 'Branch already exists');
    const created = await this.repositories.reads.branch(project, name);
    if (!created) throw notFound('Branch');
    return created;
  }

  /** GitLab's `DELETE /repository/branches/:branch`; the default branch stays (405). */
  async deleteBranch(project: ProjectRow, name: string): Promise<RefRow> {
    const { repository, user } = await this.authorize(project);
    const ref = `refs/heads/${name}`;
    const branch = await this.repositories.reads.branch(project, name);
    if (!branch) throw notFound('Branch');
    if (name === project.defaultBranch) throw methodNotAllowed('The default branch of a project cannot be deleted.');
    await this.moveRef(project, repository, user.id, ref, ZERO_SHA, branch.target, `Could not update ${ref}. Please refresh and try again.`);
    return branch;
  }

  /** GitLab's `POST /repository/tags`: lightweight, or annotated when there is a message. */
  async createTag(project: ProjectRow, name: string, revision: string, message: string | null | undefined): Promise<RefRow> {
    const { repository, user } = await this.authorize(project);
    const ref = `refs/tags/${name}`;
    if (!(await validName(repository, 'tags', name))) throw badRequest('Tag name invalid');
    if (await repository.resolve(ref)) throw badRequest(`Tag ${name} already exists`);
    const commit = await repository.resolve(`${revision}^{commit}`);
    if (!commit) throw badRequest(`Target ${revision} is invalid`);
    const annotated = message ? message.trim() : '';
    const target = annotated ? await repository.writeTag(name, commit, annotated, user) : commit;
    await this.moveRef(project, repository, user.id, ref, target, ZERO_SHA, `Tag ${name} already exists`);
    const created = await this.repositories.reads.tag(project, name);
    if (!created) throw notFound('Tag');
    return created;
  }

  /** GitLab's `DELETE /repository/tags/:tag_name`. */
  async deleteTag(project: ProjectRow, name: string): Promise<RefRow> {
    const { repository, user } = await this.authorize(project);
    const ref = `refs/tags/${name}`;
    const tag = await this.repositories.reads.tag(project, name);
    if (!tag) throw notFound('Tag');
    await this.moveRef(project, repository, user.id, ref, ZERO_SHA, tag.target, `Could not update ${ref}. Please refresh and try again.`);
    return tag;
  }
}
