/**
 * GitLab's sudo (`API::Helpers#sudo!`): a REST request carrying `sudo` (parameter) or `Sudo:` (header), by user ID or
 * username, runs as that user when an administrator's personal access token with the `sudo` scope sent it. The
 * token's scopes still bound what the request may do (it keeps them), and GraphQL has no sudo, as in GitLab.
 */
import { forbidden, insufficientScope, invalidParams, notFound, unauthenticated } from '../errors.js';
import { paramText } from '../http/params.js';
import type { Ref } from '../graphql/ids.js';
import type { Viewer } from './viewer.js';

/** What sudo needs of the user it switches to: what a viewer carries, and whether the user may act at all. */
export type SudoTarget = Pick<Viewer, 'id' | 'username' | 'admin' | 'external' | 'bot' | 'canCreateGroup'> & { state: string };

/** The user an identifier names: by ID when it is all digits, otherwise by username (ignoring case). */
export type SudoLookup = (ref: Ref) => Promise<SudoTarget | null>;

/**
 * The identifier a request gives, parameter before header (GitLab's `params[:sudo] || env['HTTP_SUDO']`); undefined
 * when none. A parameter that is neither text nor a list of it (`sudo[toString]=x`) is `sudo is invalid`.
 */
export function sudoIdentifier(params: Record<string, unknown>, header: string | undefined): string | undefined {
  const param = params.sudo;
  if (param === undefined || param === null) return header;
  const texts = (Array.isArray(param) ? param : [param]).map(paramText);
  if (texts.some((text) => text === undefined)) throw invalidParams(['sudo is invalid']);
  return texts.join(',');
}

/** The viewer the request runs as: `initial` switched to the named user, or GitLab's refusal in its words. */
export async function sudo(initial: Viewer | null, identifier: string, lookup: SudoLookup): Promise<Viewer> {
  if (!initial) throw unauthenticated();
  if (!initial.admin) throw forbidden('Must be admin to use sudo');
  if (initial.job) throw forbidden('Must be authenticated using an OAuth or personal access token to use sudo');
  if (!initial.scopes.includes('sudo')) throw insufficientScope(['sudo']);
  const ref: Ref = /^\d{1,10}$/.test(identifier) && Number(identifier) <= 2147483647 ? { id: Number(identifier) } : { path: identifier };
  const user = await lookup(ref);
  if (!user) throw notFound(`User with ID or username '${identifier}'`);
  // A user who may not use the API (blocked, deactivated) is not one a request can act as either.
  if (user.state !== 'active') throw forbidden();
  // Only what a viewer carries: the lookup may hand over the whole row.
  const { id, username, admin, external, bot, canCreateGroup } = user;
  return { id, username, admin, external, bot, canCreateGroup, tokenId: initial.tokenId, tokenExpiresAt: initial.tokenExpiresAt, scopes: initial.scopes };
}
