/**
 * GitLab's ProjectPermissions (Types::PermissionTypes::Project): each field asks the ability of its name about the
 * project, through the one policy table, so it answers what the REST and GraphQL routes guarded by it decide.
 */
import type { Context } from '../../context.js';
import type { Ability, SubjectOf } from '../../auth/policy.js';
import type { ProjectRow } from './service.js';

/** The abilities asked about a project row itself. */
type ProjectAbility = { [A in Ability]: ProjectRow extends SubjectOf<A> ? A : never }[Ability];

const ask = (ability: ProjectAbility) => (p: ProjectRow, _a: unknown, ctx: Context) => ctx.access.check(ability, p);

/** ProjectPermissions' fields, by GitLab's ability names. */
export const projectPermissionResolvers = {
  adminOperations: ask('admin_operations'),
  adminPathLocks: ask('admin_path_locks'),
  adminProject: ask('admin_project'),
  adminRemoteMirror: ask('admin_remote_mirror'),
  adminWiki: ask('admin_wiki'),
  archiveProject: ask('archive_project'),
  changeNamespace: ask('change_namespace'),
  changeVisibilityLevel: ask('change_visibility_level'),
  createDeployment: ask('create_deployment'),
  createIssue: ask('create_issue'),
  createMergeRequestFrom: ask('create_merge_request_from'),
  createMergeRequestIn: ask('create_merge_request_in'),
  createPipeline: ask('create_pipeline'),
  createPipelineSchedule: ask('create_pipeline_schedule'),
  // GitLab asks create_snippet about the project as a snippet's container.
  createSnippet: (p: ProjectRow, _a: unknown, ctx: Context) => ctx.access.check('create_snippet', { project: p }),
  createWiki: ask('create_wiki'),
  downloadCode: ask('download_code'),
  downloadWikiCode: ask('download_wiki_code'),
  forkProject: ask('fork_project'),
  pushCode: ask('push_code'),
  pushToDeleteProtectedBranch: ask('push_to_delete_protected_branch'),
  readCommitStatus: ask('read_commit_status'),
  readCycleAnalytics: ask('read_cycle_analytics'),
  readEnvironment: ask('read_environment'),
  // ProjectPolicy's read_merge_request, asked about the project: its merge requests as a whole.
  readMergeRequest: ask('read_project_merge_requests'),
  readPagesContent: ask('read_pages_content'),
  readProject: ask('read_project'),
  readProjectMember: ask('read_project_member'),
  readWiki: ask('read_wiki'),
  removeForkProject: ask('remove_fork_project'),
  removePages: ask('remove_pages'),
  removeProject: ask('remove_project'),
  renameProject: ask('rename_project'),
  requestAccess: ask('request_access'),
  updatePages: ask('update_pages'),
  uploadFile: ask('upload_file'),
};
