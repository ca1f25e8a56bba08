/**
 * Whether a job (or the pipeline) runs: `rules:` (the first matching rule decides; none matching is `never`) and
 * `only:`/`except:` (refs, variables, changes, kubernetes), as GitLab's Build::Rules and Build::Policy decide, and
 * the variables those decisions see.
 */
import { changesMatch, clausesMatch, type RepositoryProbe } from './conditions.js';
import type { RuleSpec } from './conditions-entries.js';
import { evaluateExpression } from './expression.js';
import { isRegexpLiteral, regexpLiteral } from './regexp.js';
import type { CiContext, PolicyValue } from './types.js';

/** GitLab's `merge_variables` (a Hash#merge): later lists override earlier ones; a key keeps its first place. */
export function mergeVariables(...lists: (readonly [string, string][])[]): [string, string][] {
  const merged = new Map<string, string>();
  for (const list of lists) for (const [key, value] of list) merged.set(key, value);
  return [...merged];
}

/** Predefined variables (and GitLab's own) rank below YAML variables; project and pipeline variables above them. */
const isPredefined = (key: string) => /^(?:CI|GITLAB)_/.test(key);

/** The variables a rule's `if:` sees: the context's, with YAML variables in GitLab's precedence. */
export function visibleVariables(ctx: CiContext, yaml: readonly [string, string][]): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [key, value] of Object.entries(ctx.variables)) if (isPredefined(key)) out[key] = value;
  for (const [key, value] of yaml) out[key] = value;
  for (const [key, value] of Object.entries(ctx.variables)) if (!isPredefined(key)) out[key] = value;
  return out;
}

/** The first rule whose clauses all hold, or null. */
export async function matchingRule(rules: readonly RuleSpec[], variables: Record<string, string>, ctx: CiContext, probe: RepositoryProbe): Promise<RuleSpec | null> {
  for (const rule of rules) if (await clausesMatch(rule, variables, ctx, probe)) return rule;
  return null;
}

/** Pipeline sources and the `only:`/`except:` keywords naming them (GitLab pluralises the source). */
const SOURCE_KEYWORDS: Readonly<Record<string, string>> = {
  merge_request_event: 'merge_requests',
  external_pull_request_event: 'external_pull_requests',
};

/** Rails' `pluralize` of the pipeline sources (`push` → `pushes`, `schedule` → `schedules`). */
const pluralize = (word: string) => (/(?:sh|ch|s|x)$/.test(word) ? `${word}es` : `${word}s`);

function refMatches(pattern: string, variables: Record<string, string>): boolean {
  const at = pattern.indexOf('@');
  const [refPattern, path] = at > 0 && !isRegexpLiteral(pattern) ? [pattern.slice(0, at), pattern.slice(at + 1)] : [pattern, null];
  if (path !== null && variables.CI_PROJECT_PATH !== path) return false;
  const source = variables.CI_PIPELINE_SOURCE;
  if (refPattern === 'tags' && variables.CI_COMMIT_TAG !== undefined) return true;
  if (refPattern === 'branches' && variables.CI_COMMIT_BRANCH !== undefined) return true;
  if (source && (refPattern === source || refPattern === pluralize(source) || refPattern === SOURCE_KEYWORDS[source])) return true;
  const ref = variables.CI_COMMIT_REF_NAME ?? '';
  if (isRegexpLiteral(refPattern)) return regexpLiteral(refPattern)?.test(ref) ?? false;
  return refPattern === ref;
}

/** Whether every condition of the policy holds (GitLab's Build::Policy: refs, variables, changes, kubernetes). */
function policyHolds(policy: PolicyValue, variables: Record<string, string>, ctx: CiContext): boolean {
  if (policy.refs && !policy.refs.some((ref) => refMatches(ref, variables))) return false;
  if (policy.variables && !policy.variables.some((statement) => evaluateExpression(statement, variables))) return false;
  if (policy.changes && !changesMatch(policy.changes, ctx.changes, variables)) return false;
  // No deployment platform is configured here, so `kubernetes: active` never holds.
  if (policy.kubernetes) return false;
  return true;
}

/** `only:` holds and `except:` does not. */
export function policyAllows(only: PolicyValue | null, except: PolicyValue | null, variables: Record<string, string>, ctx: CiContext): boolean {
  if (only && !policyHolds(only, variables, ctx)) return false;
  if (except && policyHolds(except, variables, ctx)) return false;
  return true;
}
