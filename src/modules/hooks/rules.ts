/**
 * Webhooks' pure rules: GitLab's auto-disabling (WebHooks::AutoDisabling), branch filters, URL variables, and what
 * an attribute change must satisfy. No database, no HTTP.
 */

/** Failed deliveries in a row a hook takes before it is disabled for a while (GitLab's FAILURE_THRESHOLD). */
export const FAILURE_THRESHOLD = 3;
/** Beyond this many failures in a row, a hook stays disabled until it is changed (PERMANENTLY_DISABLED_FAILURE_THRESHOLD). */
export const PERMANENT_FAILURE_THRESHOLD = 39;
/** Failures counted at most (MAX_FAILURES). */
export const MAX_FAILURES = 100;
export const INITIAL_BACKOFF_MS = 60_000;
export const MAX_BACKOFF_MS = 24 * 60 * 60 * 1000;

/** Only project hooks are auto-disabled (GitLab's ENABLED_HOOK_TYPES). */
export const AUTO_DISABLED_TYPES = new Set(['ProjectHook']);

export type HookType = 'SystemHook' | 'ProjectHook' | 'GroupHook';
export type AlertStatus = 'executable' | 'temporarily_disabled' | 'disabled';

export interface FailureState {
  type: string;
  recentFailures: number;
  backoffCount: number;
  disabledUntil: Date | null;
}

export function alertStatus(hook: FailureState, now = new Date()): AlertStatus {
  if (!AUTO_DISABLED_TYPES.has(hook.type)) return 'executable';
  if (hook.disabledUntil && hook.disabledUntil >= now) return 'temporarily_disabled';
  if (hook.recentFailures > PERMANENT_FAILURE_THRESHOLD) return 'disabled';
  return 'executable';
}

/** 1 minute, doubling with each backoff taken, at most a day (WebHooks::AutoDisabling#next_backoff). */
export function nextBackoffMs(backoffCount: number): number {
  if (backoffCount >= 8) return MAX_BACKOFF_MS;
  return Math.min(Math.max(INITIAL_BACKOFF_MS * 2 ** backoffCount, INITIAL_BACKOFF_MS), MAX_BACKOFF_MS);
}

/** The counters after a delivery: a success clears them; a failure counts, and past the threshold backs off. */
export function afterDelivery(hook: FailureState, succeeded: boolean, now = new Date()): Pick<FailureState, 'recentFailures' | 'backoffCount' | 'disabledUntil'> {
  if (succeeded) return { recentFailures: 0, backoffCount: 0, disabledUntil: null };
  if (!AUTO_DISABLED_TYPES.has(hook.type)) return { recentFailures: hook.recentFailures, backoffCount: hook.backoffCount, disabledUntil: hook.disabledUntil };
  const recentFailures = Math.min(hook.recentFailures + 1, MAX_FAILURES);
  if (recentFailures > PERMANENT_FAILURE_THRESHOLD) return { recentFailures, backoffCount: hook.backoffCount, disabledUntil: null };
  if (recentFailures > FAILURE_THRESHOLD) {
    return { recentFailures, backoffCount: Math.min(hook.backoffCount + 1, MAX_FAILURES), disabledUntil: new Date(now.getTime() + nextBackoffMs(hook.backoffCount)) };
  }
  return { recentFailures, backoffCount: hook.backoffCount, disabledUntil: null };
}

export type BranchFilterStrategy = 'wildcard' | 'regex' | 'all_branches';

/** Whether a push to `branch` calls a hook with this filter (GitLab's ActiveHookFilter). */
export function branchMatches(strategy: BranchFilterStrategy | string, filter: string | null, branch: string | null): boolean {
  if (branch === null || strategy === 'all_branches' || !filter) return true;
  if (strategy === 'regex') {
    try {
      return new RegExp(filter).test(branch);
    } catch {
      return false;
    }
  }
  // Wildcards: `*` stands for anything; the rest is matched as is.
  const pattern = filter.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${pattern}$`).test(branch);
}

/** A branch filter that can never be read is refused when it is saved, in GitLab's words. */
export function branchFilterProblem(strategy: BranchFilterStrategy, filter: string | null | undefined): string | null {
  if (!filter || strategy === 'all_branches') return null;
  if (filter.length > 4000) return 'is too long (maximum is 4000 characters)';
  if (strategy === 'regex') {
    try {
      new RegExp(filter);
    } catch {
      return 'is not a valid regular expression';
    }
    return null;
  }
  // Git refuses these in a branch name; a wildcard filter holding them matches nothing.
  if (/[\s~^:?[\\]|\.\.|@\{/.test(filter)) return 'is not a valid branch name';
  return null;
}

/** GitLab's URL variable keys: letters and digits, joined by single `.`, `_` or `-`. */
export const URL_VARIABLE_KEY = /^[A-Za-z0-9]+(?:[._-][A-Za-z0-9]+)*$/;
export const MAX_URL_VARIABLES = 100;
/** GitLab's web_hooks_custom_headers schema: a header name. */
export const CUSTOM_HEADER_KEY = /^[A-Za-z]+[0-9]*(?:[._-][A-Za-z0-9]+)*$/;

/** GitLab's WebHook::VARIABLE_REFERENCE_RE: a `{key}` of the URL. */
const VARIABLE_REFERENCE = /\{([A-Za-z]+[0-9]*(?:[._-][A-Za-z0-9]+)*)\}/g;

/** The `{key}`s of the URL that have no variable (WebHook#no_missing_url_variables), each once, in order. */
export function missingUrlVariables(url: string, variables: Readonly<Record<string, string>>): string[] {
  const used = [...url.matchAll(VARIABLE_REFERENCE)].map((m) => m[1]);
  return [...new Set(used)].filter((k) => !Object.hasOwn(variables, k));
}

/** The URL with each `{key}` replaced by its (URL-encoded) value; unknown placeholders stay. */
export function interpolate(url: string, variables: Readonly<Record<string, string>>): string {
  return url.replace(/\{([A-Za-z0-9._-]+)\}/g, (whole, key: string) => (key in variables ? encodeURIComponent(variables[key]) : whole));
}
