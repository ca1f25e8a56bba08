/** The repository API (GitLab's `lib/api/commits.rb`, `files.rb`, `repositories.rb`, `branches.rb`, `tags.rb`). */
import type { RestRoute } from '../../rest/route.js';

/** GitLab's `X-Gitlab-*` headers of the files API, from the keys of the file's JSON. */
const FILE_HEADERS = {
  'X-Gitlab-Blob-Id': 'blob_id',
  'X-Gitlab-Commit-Id': 'commit_id',
  'X-Gitlab-Content-Sha256': 'content_sha256',
  'X-Gitlab-Encoding': 'encoding',
  'X-Gitlab-File-Name': 'file_name',
  'X-Gitlab-File-Path': 'file_path',
  'X-Gitlab-Last-Commit-Id': 'last_commit_id',
  'X-Gitlab-Ref': 'ref',
  'X-Gitlab-Size': 'size',
  'X-Gitlab-Execute-Filemode': 'execute_filemode',
};

const files = '/projects/:id/repository/files/:file_path';

export const repositoryRoutes: RestRoute[] = [
  // Commits: offset pages without X-Total (GitLab counts no commits: `exclude_total_headers`, `without_count`).
  { method: 'GET', path: '/projects/:id/repository/commits', operation: 'RestListCommits', result: 'projectRepository.commits', paginate: 'without-count' },
  { method: 'POST', path: '/projects/:id/repository/commits', operation: 'RestCreateCommit', result: 'repositoryCommitCreate.commit' },
  { method: 'GET', path: '/projects/:id/repository/commits/:sha', operation: 'RestGetCommit', result: 'projectRepository.commit', notFound: 'Commit' },
  // HEAD runs the GET route: the same headers, no body.
  { method: 'GET', path: files, operation: 'RestGetFile', result: 'projectRepository.file', headers: FILE_HEADERS },
  { method: 'GET', path: `${files}/raw`, operation: 'RestGetRawFile', result: 'projectRepository.file', headers: FILE_HEADERS, raw: true },
  { method: 'POST', path: files, operation: 'RestCreateFile', result: 'repositoryFileCreate.repositoryFileCommit' },
  { method: 'PUT', path: files, operation: 'RestUpdateFile', result: 'repositoryFileUpdate.repositoryFileCommit' },
  { method: 'DELETE', path: files, operation: 'RestDeleteFile', result: 'repositoryFileDelete.repositoryFileCommit', status: 204 },
  { method: 'GET', path: '/projects/:id/repository/tree', operation: 'RestListTree', result: 'projectRepository.treeEntries', paginate: true },
  { method: 'GET', path: '/projects/:id/repository/blobs/:sha', operation: 'RestGetBlob', result: 'projectRepository.blob', notFound: 'Blob' },
  { method: 'GET', path: '/projects/:id/repository/blobs/:sha/raw', operation: 'RestGetRawBlob', result: 'projectRepository.blob', notFound: 'Blob', raw: true },
  { method: 'GET', path: '/projects/:id/repository/compare', operation: 'RestCompare', result: 'projectRepository.compare' },
  { method: 'GET', path: '/projects/:id/repository/branches', operation: 'RestListBranches', result: 'projectRepository.branches', paginate: true },
  { method: 'GET', path: '/projects/:id/repository/branches/:branch', operation: 'RestGetBranch', result: 'projectRepository.branch', notFound: 'Branch' },
  { method: 'POST', path: '/projects/:id/repository/branches', operation: 'RestCreateBranch', result: 'repositoryBranchCreate.branch' },
  { method: 'DELETE', path: '/projects/:id/repository/branches/:branch', operation: 'RestDeleteBranch', result: 'repositoryBranchDelete.branch', status: 204 },
  { method: 'GET', path: '/projects/:id/repository/tags', operation: 'RestListTags', result: 'projectRepository.tags', paginate: true },
  { method: 'GET', path: '/projects/:id/repository/tags/:tag_name', operation: 'RestGetTag', result: 'projectRepository.tag', notFound: 'Tag' },
  { method: 'POST', path: '/projects/:id/repository/tags', operation: 'RestCreateTag', result: 'repositoryTagCreate.tag' },
  { method: 'DELETE', path: '/projects/:id/repository/tags/:tag_name', operation: 'RestDeleteTag', result: 'repositoryTagDelete.tag', status: 204 },
];
