/**
 * GitLab's Ci::ListConfigVariablesService as GraphQL's `Project.ciConfigVariables(ref:)` shows it: the top-level
 * `variables:` of the project's CI configuration at a ref (includes merged), each with its value and, where the
 * configuration gives them, its description and `options:`; none when the configuration is missing or invalid.
 */
import { isMap, isScalar, isSeq, parseDocument } from 'yaml';

export interface ConfigVariable {
  key: string;
  value: string;
  description: string | null;
  valueOptions: string[] | null;
}

/** Ruby's `to_s` of a YAML scalar: nil is empty. */
const rubyString = (value: unknown): string => (value === null || value === undefined ? '' : String(value));

/** The root variables of a merged configuration (GitLab's `root_variables_with_prefill_data`), in their order. */
export function rootVariables(mergedYaml: string): ConfigVariable[] {
  const root = parseDocument(mergedYaml).contents;
  const variables = isMap(root) ? root.get('variables', true) : null;
  if (!isMap(variables)) return [];
  return variables.items.map((pair) => {
    const key = rubyString(isScalar(pair.key) ? pair.key.value : pair.key);
    const entry = pair.value;
    if (!isMap(entry)) return { key, value: rubyString(isScalar(entry) ? entry.value : null), description: null, valueOptions: null };
    const scalar = (name: string) => {
      const node = entry.get(name, true);
      return isScalar(node) ? node.value : null;
    };
    const options = entry.get('options', true);
    return {
      key,
      value: rubyString(scalar('value')),
      description: scalar('description') === null ? null : rubyString(scalar('description')),
      valueOptions: isSeq(options) ? options.items.map((item) => rubyString(isScalar(item) ? item.value : null)) : null,
    };
  });
}
