/**
 * The clauses of a rule (`if`, `changes`, `exists`), shared by job rules, `workflow:rules` and `include:rules`:
 * a rule matches when every clause it has is satisfied (GitLab's Build::Rules::Rule).
 */
import { evaluateExpression } from './expression.js';
import { fnmatch, isGlob } from './glob.js';
import type { CiContext } from './types.js';
import { expandVariables } from './variables.js';

export interface Clauses {
  if?: string;
  changes?: string[];
  exists?: string[];
  /** `exists: {project, ref}`: the paths are files of that project (at `ref`, else its default branch). */
  existsProject?: string;
  existsRef?: string;
}

/** A clause that cannot be evaluated (GitLab's Rules::Rule::Clause::ParseError), in GitLab's words. */
export class RuleParseError extends Error {}

/** GitLab's Clause::Exists::MAX_PATTERN_COMPARISONS. */
const MAX_PATTERN_COMPARISONS = 50_000;

/** The suffix an extension glob tests for (`.js` of `**\/*.js`, GitLab's extension_glob?), or null for another glob. */
function extensionOf(glob: string): string | null {
  const rest = glob.startsWith('**/*') ? glob.slice(4) : glob;
  return rest.startsWith('.') && !rest.includes('/') && !isGlob(rest) ? rest : null;
}

/** Repository lookups for `exists:`, each made once per plan. */
export class RepositoryProbe {
  private readonly found = new Map<string, Promise<boolean>>();
  private listing: Promise<readonly string[]> | undefined;

  constructor(private readonly ctx: CiContext) {}

  private exists(path: string): Promise<boolean> {
    let known = this.found.get(path);
    if (!known) this.found.set(path, (known = this.ctx.readLocal(path).then((content) => content !== null)));
    return known;
  }

  /** Every path of the repository (empty when the context cannot list them). */
  files(): Promise<readonly string[]> {
    this.listing ??= this.ctx.listFiles ? this.ctx.listFiles() : Promise.resolve([]);
    return this.listing;
  }

  /**
   * Whether any of the patterns names a file of the repository. As GitLab's Clause::Exists, more than
   * MAX_PATTERN_COMPARISONS glob comparisons (files × glob patterns) count as a match rather than being made.
   */
  async anyExists(patterns: readonly string[]): Promise<boolean> {
    const paths = patterns.map((pattern) => pattern.replace(/^\/+/, ''));
    for (const path of paths) if (!isGlob(path) && (await this.exists(path))) return true;
    const wildcards = paths.filter(isGlob);
    if (wildcards.length === 0) return false;
    const files = await this.files();
    // `**/*.ext` globs are a suffix test (GitLab's extension globs), not counted among the comparisons.
    const extensions = wildcards.map(extensionOf);
    if (files.some((file) => extensions.some((extension) => extension !== null && file.endsWith(extension)))) return true;
    const globs = wildcards.filter((_, i) => extensions[i] === null);
    if (globs.length === 0) return false;
    if (files.length * globs.length > MAX_PATTERN_COMPARISONS) return true;
    return globs.some((glob) => files.some((file) => fnmatch(glob, file)));
  }
}

/** GitLab's `changes:` clause: true when the changed paths are unknown, else whether one matches a pattern. */
export function changesMatch(patterns: readonly string[], changes: readonly string[] | undefined, variables: Record<string, string>): boolean {
  if (changes === undefined) return true;
  const globs = patterns.map((p) => expandVariables(p, variables, true));
  return changes.some((path) => globs.some((glob) => fnmatch(glob, path)));
}

/** Whether every clause of the rule holds. */
export async function clausesMatch(clauses: Clauses, variables: Record<string, string>, ctx: CiContext, probe: RepositoryProbe): Promise<boolean> {
  if (clauses.if !== undefined && !evaluateExpression(clauses.if, variables)) return false;
  if (clauses.changes !== undefined && !changesMatch(clauses.changes, ctx.changes, variables)) return false;
  if (clauses.exists !== undefined) {
    const paths = clauses.exists.map((p) => expandVariables(p, variables, true));
    const where = clauses.existsProject === undefined ? probe : await otherProject(clauses, variables, ctx);
    if (!where || !(await where.anyExists(paths))) return false;
  }
  return true;
}

/** The files `exists: {project, ref}` looks at (GitLab's Clause::Exists#change_context); null for an empty repository. */
async function otherProject(clauses: Clauses, variables: Record<string, string>, ctx: CiContext): Promise<RepositoryProbe | null> {
  const path = expandVariables(clauses.existsProject!, variables, true);
  const ref = clauses.existsRef === undefined ? null : expandVariables(clauses.existsRef, variables, true);
  const project = ctx.readProject ? await ctx.readProject(path, ref) : null;
  if (!project) throw new RuleParseError(`rules:exists:project \`${path}\` not found or access denied`);
  if (project.sha === null) {
    if (ref === null) return null;
    throw new RuleParseError(`rules:exists:ref \`${ref}\` is not a valid ref in project \`${project.fullPath}\``);
  }
  return new RepositoryProbe({ variables, readLocal: (file) => project.read(file), listFiles: () => project.files() });
}
