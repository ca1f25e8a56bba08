/** Repository storage moves (GitLab's project_repository_storage_moves.rb and EE group_repository_storage_moves.rb). */
import type { RestRoute } from '../../rest/route.js';

export const repositoryStorageMoveRoutes: RestRoute[] = [
  { method: 'GET', path: '/project_repository_storage_moves', operation: 'RestListProjectRepositoryStorageMoves', result: 'projectRepositoryStorageMoves', paginate: true },
  { method: 'GET', path: '/project_repository_storage_moves/:repository_storage_move_id', operation: 'RestGetProjectRepositoryStorageMove', result: 'projectRepositoryStorageMove' },
  // GitLab's accepted!: the moves are scheduled by a background job.
  { method: 'POST', path: '/project_repository_storage_moves', operation: 'RestScheduleProjectRepositoryStorageMoves', result: 'projectRepositoryStorageMovesSchedule', status: 202 },
  { method: 'GET', path: '/projects/:id/repository_storage_moves', operation: 'RestListRepositoryStorageMovesOfProject', result: 'projectRepositoryStorageMoves', paginate: true },
  { method: 'GET', path: '/projects/:id/repository_storage_moves/:repository_storage_move_id', operation: 'RestGetRepositoryStorageMoveOfProject', result: 'projectRepositoryStorageMove' },
  { method: 'POST', path: '/projects/:id/repository_storage_moves', operation: 'RestCreateProjectRepositoryStorageMove', result: 'projectRepositoryStorageMoveCreate.projectRepositoryStorageMove' },
  { method: 'GET', path: '/group_repository_storage_moves', operation: 'RestListGroupRepositoryStorageMoves', result: 'groupRepositoryStorageMoves', paginate: true },
  { method: 'GET', path: '/group_repository_storage_moves/:repository_storage_move_id', operation: 'RestGetGroupRepositoryStorageMove', result: 'groupRepositoryStorageMove' },
  { method: 'POST', path: '/group_repository_storage_moves', operation: 'RestScheduleGroupRepositoryStorageMoves', result: 'groupRepositoryStorageMovesSchedule', status: 202 },
  { method: 'GET', path: '/groups/:id/repository_storage_moves', operation: 'RestListRepositoryStorageMovesOfGroup', result: 'groupRepositoryStorageMoves', paginate: true },
  { method: 'GET', path: '/groups/:id/repository_storage_moves/:repository_storage_move_id', operation: 'RestGetRepositoryStorageMoveOfGroup', result: 'groupRepositoryStorageMove' },
  { method: 'POST', path: '/groups/:id/repository_storage_moves', operation: 'RestCreateGroupRepositoryStorageMove', result: 'groupRepositoryStorageMoveCreate.groupRepositoryStorageMove' },
];
