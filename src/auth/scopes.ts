/**
 * Token scopes, GitLab's rule for them: every API call accepts `api`; reads (queries, subscriptions) also accept
 * `read_api`. A root field names further scopes in the SDL (`@scopes(accept: [read_user])`), or accepts a token of
 * any scope (`@scopes(any: true)`, GitLab's token self-information endpoints). The rule is applied once, around
 * the resolvers (src/graphql/scopes.ts), so REST, GraphQL over HTTP and graphql-ws subscriptions agree.
 */
import { insufficientScope, unauthenticated } from '../errors.js';
import type { Viewer } from './viewer.js';

/** Every scope a personal access token may carry (GitLab's `Gitlab::Auth.all_available_scopes`). */
export const TOKEN_SCOPES = [
  'api',
  'read_api',
  'read_user',
  'create_runner',
  'manage_runner',
  'k8s_proxy',
  'read_repository',
  'write_repository',
  'read_registry',
  'write_registry',
  'read_virtual_registry',
  'write_virtual_registry',
  'sudo',
  'admin_mode',
  'read_service_ping',
  'ai_features',
  'self_rotate',
] as const;

export type OperationKind = 'query' | 'mutation' | 'subscription';

/** What one field declares: scopes accepted besides the defaults, or any scope at all; and job tokens. */
export interface ScopeDeclaration {
  accept?: readonly string[];
  any?: boolean;
  jobToken?: boolean;
  /** A mutation that authenticates by an argument of its own (a trigger token), so callers need no API token. */
  tokenless?: boolean;
}

/**
 * The scope a CI job token carries. No personal access token can have it (it is not in TOKEN_SCOPES): only fields
 * declaring `@scopes(jobToken: true)` accept it (GitLab's `job_token_allowed` routes), and git clones.
 */
export const JOB_TOKEN_SCOPE = 'ci_job_token';

const DEFAULTS: Record<OperationKind, readonly string[]> = {
  query: ['api', 'read_api'],
  subscription: ['api', 'read_api'],
  mutation: ['api'],
};

/** The scopes a field accepts, or null when any scope will do. */
export function acceptedScopes(kind: OperationKind, declared: ScopeDeclaration | undefined): readonly string[] | null {
  if (declared?.any) return null;
  const job = declared?.jobToken ? [JOB_TOKEN_SCOPE] : [];
  return [...new Set([...DEFAULTS[kind], ...(declared?.accept ?? []), ...job])];
}

/**
 * Throws INSUFFICIENT_SCOPE when the viewer's token carries none of the accepted scopes. Anonymous callers have no
 * token to check. `jobTokenRoute`: the request is a REST route that allows CI job tokens, whatever the field says.
 */
export function requireScope(viewer: Viewer | null, accepted: readonly string[] | null, jobTokenRoute = false): void {
  if (!viewer) return;
  // GitLab reads a job token only where a route allows one: elsewhere the caller is not authenticated.
  if (viewer.job) {
    if (jobTokenRoute) return;
    if (!accepted?.includes(JOB_TOKEN_SCOPE)) throw unauthenticated();
  }
  if (accepted === null) return;
  if (!viewer.scopes.some((s) => accepted.includes(s))) throw insufficientScope([...accepted]);
}

/**
 * Scopes that let a token use git over HTTP (GitLab's `abilities_for_scopes`): `download_code` comes with `api`,
 * `read_api`, `read_repository` and `write_repository` (and a CI job token); `push_code` with `api` and `write_repository`.
 */
export const GIT_SCOPES = {
  download: ['api', 'read_api', 'read_repository', 'write_repository', JOB_TOKEN_SCOPE],
  push: ['api', 'write_repository'],
} as const;
