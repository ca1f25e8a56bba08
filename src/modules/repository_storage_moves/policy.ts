/**
 * Abilities over repository storage moves (GitLab's `authenticated_as_admin!` on every storage-move route, and its
 * `read_repository_storage_move` / `create_repository_storage_move` permissions): administrators only.
 */
import { administrator, type Rule } from '../../auth/rules.js';

/** Storage moves have no subject of their own: every ability is global, for administrators. */
export const RepositoryStorageMovePolicy = {
  read_repository_storage_move: administrator as Rule<null, never>,
  create_repository_storage_move: administrator as Rule<null, never>,
};

type RepositoryStorageMovePolicyRules = typeof RepositoryStorageMovePolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends RepositoryStorageMovePolicyRules {}
}
