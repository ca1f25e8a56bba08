/**
 * Push options (`git push -o <option>`) as GitLab reads them (Gitlab::PushOptions): `<namespace>.<key>[=<value>]`,
 * a value-less option meaning `true`; only the namespaces and keys GitLab knows are kept, everything else is
 * ignored. `ci.skip` skips the push's pipeline; each `ci.variable=KEY=value` becomes one of its variables.
 * Merge request options belong to merge requests (not here): they are parsed and kept, nothing reads them yet.
 */

const VALID: Record<string, readonly string[]> = {
  ci: ['input', 'skip', 'variable'],
  integrations: ['skip_ci'],
  merge_request: [
    'auto_merge', 'create', 'description', 'draft', 'label', 'merge_when_pipeline_succeeds', 'remove_source_branch',
    'squash', 'target', 'target_project', 'title', 'unlabel', 'assign', 'unassign',
  ],
  secret_push_protection: ['skip_all'],
};
const ALIASES: Record<string, string> = { mr: 'merge_request' };
/** Keys given more than once keep each value (the others keep the last one, as GitLab does). */
const MULTI_VALUE = new Set(['ci.input', 'ci.variable', 'merge_request.label', 'merge_request.unlabel', 'merge_request.assign', 'merge_request.unassign']);

export type PushOptionValue = string | true | string[];
export type PushOptions = Record<string, Record<string, PushOptionValue>>;

/** The options GitLab keeps from what the client sent, by namespace and key; null when none. */
export function parsePushOptions(raw: readonly string[]): PushOptions | null {
  const out: PushOptions = {};
  for (const option of raw) {
    const match = /^([^.]+)\.([^=]+)=?(.*)$/s.exec(option);
    if (!match) continue;
    const namespace = ALIASES[match[1]] ?? match[1];
    const key = match[2];
    if (!VALID[namespace]?.includes(key)) continue;
    const value: string | true = match[3] === '' ? true : match[3];
    const bucket = (out[namespace] ??= {});
    if (MULTI_VALUE.has(`${namespace}.${key}`)) {
      if (value === true) continue;
      const values = (bucket[key] ??= []) as string[];
      if (!values.includes(value)) values.push(value);
    } else bucket[key] = value;
  }
  return Object.keys(out).length ? out : null;
}

/** Whether the options skip the push's pipeline (Chain::Skip: `ci.skip` with any value). */
export function skipsCi(options: PushOptions | null | undefined): boolean {
  return options?.ci?.skip !== undefined;
}

/**
 * The pipeline variables of `ci.variable` options (CreatePipelineService#ci_variables_from_push_options): `KEY=value`
 * split at the first `=`; a definition without a key or without `=` is ignored, `KEY=` is an empty value.
 */
export function pushOptionVariables(options: PushOptions | null | undefined): { key: string; value: string; variableType: string }[] {
  const definitions = options?.ci?.variable;
  if (!Array.isArray(definitions)) return [];
  // One variable per key (a pipeline's keys are unique): the last definition wins.
  const out = new Map<string, { key: string; value: string; variableType: string }>();
  for (const definition of definitions) {
    const at = definition.indexOf('=');
    const key = at < 0 ? '' : definition.slice(0, at);
    if (key.trim() === '') continue;
    out.delete(key);
    out.set(key, { key, value: definition.slice(at + 1), variableType: 'env_var' });
  }
  return [...out.values()];
}
