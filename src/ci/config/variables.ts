/** Variable references in configuration text (`$VAR`, `${VAR}`, `%VAR%`), expanded as GitLab's ExpandVariables does. */

/** GitLab's VARIABLES_REGEXP: `$$` and `%%` (escapes, kept), `$KEY`, `${KEY}` and `%KEY%`. */
export const REFERENCE = /\$\$|%%|\$([a-zA-Z_][a-zA-Z0-9_]*)|\$\{([a-zA-Z_][a-zA-Z0-9_]*)?\}|%([a-zA-Z_][a-zA-Z0-9_]*)%/g;

/** Longest text an expansion may produce (a value referring to itself twice per level would double each time). */
const MAX_EXPANDED = 64 * 1024;

/**
 * Replaces each reference with the variable's value; an unknown variable is left as written when `keepUnknown`
 * (GitLab's `expand_existing`, for include locations), else removed.
 */
export function expandVariables(text: string, variables: Record<string, string>, keepUnknown: boolean): string {
  return text.replace(REFERENCE, (whole, a?: string, b?: string, c?: string) => {
    const name = a ?? b ?? c;
    if (!name) return whole;
    if (Object.hasOwn(variables, name)) return variables[name];
    return keepUnknown ? whole : '';
  });
}

/**
 * Expands references, and references inside the values they bring (GitLab expands `workflow:name` this way, so a
 * rule's `PIPELINE_NAME: 'Build for $CI_COMMIT_BRANCH'` reads as the branch). A variable met again while it is being
 * expanded stays as written; the result is cut at MAX_EXPANDED characters.
 */
export function expandNested(text: string, variables: Record<string, string>): string {
  const done = new Map<string, string>();
  const active = new Set<string>();
  const expand = (value: string): string => {
    let out = '';
    let last = 0;
    for (const match of value.matchAll(REFERENCE)) {
      out += value.slice(last, match.index);
      last = match.index + match[0].length;
      const name = match[1] ?? match[2] ?? match[3];
      if (!name) out += match[0];
      else if (active.has(name)) out += match[0];
      else if (!Object.hasOwn(variables, name)) out += '';
      else {
        let resolved = done.get(name);
        if (resolved === undefined) {
          active.add(name);
          resolved = expand(variables[name]);
          active.delete(name);
          done.set(name, resolved);
        }
        out += resolved;
      }
      if (out.length > MAX_EXPANDED) return out.slice(0, MAX_EXPANDED);
    }
    return (out + value.slice(last)).slice(0, MAX_EXPANDED);
  };
  return expand(text);
}
