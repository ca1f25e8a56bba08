/** The history routes of GitLab's repository API (`commits.rb`, `files.rb` blame, `repositories.rb`). Archives and snapshots are byte streams: src/http/repository-archive.ts. */
import type { RestRoute } from '../../rest/route.js';

const commit = '/projects/:id/repository/commits/:sha';

export const repositoryHistoryRoutes: RestRoute[] = [
  { method: 'GET', path: '/projects/:id/repository/files/:file_path/blame', operation: 'RestGetFileBlame', result: 'projectRepository.blame' },
  { method: 'GET', path: `${commit}/diff`, operation: 'RestGetCommitDiff', result: 'projectRepository.commitDiff', paginate: true },
  // GitLab lists a commit's refs without counting them (`without_count`).
  { method: 'GET', path: `${commit}/refs`, operation: 'RestGetCommitRefs', result: 'projectRepository.commitRefs', paginate: 'without-count' },
  { method: 'GET', path: `${commit}/signature`, operation: 'RestGetCommitSignature', result: 'projectRepository.commitSignature' },
  { method: 'GET', path: `${commit}/merge_requests`, operation: 'RestGetCommitMergeRequests', result: 'projectRepository.commitMergeRequests', paginate: true },
  // A dry run answers `{"dry_run":"success"}` with GitLab's `status :ok`; a commit made, 201.
  { method: 'POST', path: `${commit}/cherry_pick`, operation: 'RestCherryPickCommit', result: 'repositoryCommitCherryPick', okWhen: 'dry_run' },
  { method: 'POST', path: `${commit}/revert`, operation: 'RestRevertCommit', result: 'repositoryCommitRevert', okWhen: 'dry_run' },
  { method: 'GET', path: '/projects/:id/repository/merge_base', operation: 'RestGetMergeBase', result: 'projectRepository.mergeBase', notFound: 'Merge Base' },
  { method: 'GET', path: '/projects/:id/repository/contributors', operation: 'RestListContributors', result: 'projectRepository.contributors', paginate: true },
];
