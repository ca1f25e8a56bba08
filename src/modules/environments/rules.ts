/**
 * Pure rules of environments and deployments: GitLab's environment slug (Gitlab::Slug::Environment), the tier it
 * guesses from a name (Environment#guess_tier), the name and URL validations of its model, and the deployment
 * statuses a job's status maps onto (Deployment#sync_status_with).
 */
import { createHash } from 'node:crypto';

export const TIERS = ['production', 'staging', 'testing', 'development', 'other'] as const;
export type Tier = (typeof TIERS)[number];
export const STATES = ['available', 'stopping', 'stopped'] as const;
export const DEPLOYMENT_STATUSES = ['created', 'running', 'success', 'failed', 'canceled', 'skipped', 'blocked'] as const;
/** Statuses a deployment ends in (Deployment::FINISHED_STATUSES): they set `finished_at`. */
export const FINISHED_STATUSES = ['success', 'failed', 'canceled'];
/** Statuses whose transitions GitLab tells project hooks about (Deployment's `after_transition ... execute_hooks`). */
export const HOOKED_STATUSES = ['running', 'success', 'failed', 'canceled'];

/** The longest slug (an OpenShift limit GitLab keeps). */
const SLUG_MAX = 24;

/** The 6-character suffix GitLab adds to a slug that is not the name itself: the name's SHA-256 in base 36, its end. */
function slugSuffix(name: string): string {
  const digest = BigInt(`0x${createHash('sha256').update(name).digest('hex')}`);
  return digest.toString(36).slice(-6);
}

/**
 * GitLab's environment slug: lower case, anything but a-z and 0-9 as `-`, `env-` before a name not starting with a
 * letter, runs of `-` squeezed to one; a slug longer than 24 characters or different from the name is cut to 17
 * characters and given `-` and a 6-character suffix from the name's digest; otherwise a trailing `-` goes.
 */
export function environmentSlug(name: string): string {
  let slug = name.toLowerCase().replace(/[^a-z0-9]/g, '-');
  if (!/^[a-z]/.test(slug)) slug = `env-${slug}`;
  slug = slug.replace(/-{2,}/g, '-');
  if (slug.length > SLUG_MAX || slug !== name) {
    slug = slug.slice(0, 17);
    if (!slug.endsWith('-')) slug += '-';
    return slug + slugSuffix(name);
  }
  return slug.replace(/-$/, '');
}

/** Environment#guess_tier: the tier a name suggests, in GitLab's order of tests. */
export function guessTier(name: string): Tier {
  if (/(dev|review|trunk)/i.test(name)) return 'development';
  if (/(test|tst|int|ac(ce|)pt|qa|qc|control|quality)/i.test(name)) return 'testing';
  if (/(st(a|)g|mod(e|)l|pre|demo|non)/i.test(name)) return 'staging';
  if (/(pr(o|)d|live)/i.test(name)) return 'production';
  return 'other';
}

/** Gitlab::Regex.environment_name_regex and its message. */
const NAME = /^[a-zA-Z0-9_/${}. -]+$/;
export const NAME_MESSAGE = "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'";

/** The Environment model's errors for a name (`name` attribute). */
export function nameErrors(name: string): string[] {
  if (name.trim() === '') return ["can't be blank"];
  const errors: string[] = [];
  if (name.length > 255) errors.push('is too long (maximum is 255 characters)');
  if (!NAME.test(name) || name.startsWith('/') || name.endsWith('/')) errors.push(NAME_MESSAGE);
  return errors;
}

/** Gitlab::Regex.kubernetes_namespace_regex and its message. */
const KUBERNETES_NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const KUBERNETES_NAMESPACE_MESSAGE = "can contain only lowercase letters, digits, and '-'. Must start with a letter, and cannot end with '-'";

/**
 * The Environment model's errors for a Kubernetes namespace that is not blank (a blank one is none, `nullify_if_blank`):
 * 1 to 63 characters of the namespace format, and only with a cluster agent. This product has no cluster agents, so
 * every namespace is refused, as GitLab refuses one on an environment without an agent.
 */
export function kubernetesNamespaceErrors(namespace: string): string[] {
  const errors: string[] = [];
  if (namespace.length > 63) errors.push('is too long (maximum is 63 characters)');
  if (!KUBERNETES_NAMESPACE.test(namespace)) errors.push(KUBERNETES_NAMESPACE_MESSAGE);
  errors.push('cannot be set without a cluster agent');
  return errors;
}

/** The Environment model's errors for an external URL (`addressable_url`, at most 255 characters). */
export function externalUrlErrors(url: string): string[] {
  const errors: string[] = [];
  if (url.length > 255) errors.push('is too long (maximum is 255 characters)');
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  if (!parsed) errors.push('is blocked: URI is invalid');
  else if (!['http:', 'https:'].includes(parsed.protocol)) errors.push('is blocked: Only allowed schemes are http, https');
  return errors;
}

/** The deployment status a job's status moves its deployment to (null: none, as for pending or manual jobs). */
export function deploymentStatusOf(jobStatus: string): string | null {
  return ['running', 'success', 'failed', 'canceled', 'skipped'].includes(jobStatus) ? jobStatus : null;
}

/** Deployment's state machine: `run` only from created; `succeed`, `drop`, `cancel` and `skip` from any other status. */
export function deploymentMayMove(from: string, to: string): boolean {
  if (from === to) return false;
  if (to === 'running') return from === 'created';
  if (to === 'blocked') return from === 'created';
  return ['success', 'failed', 'canceled', 'skipped'].includes(to);
}
