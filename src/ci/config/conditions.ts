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

  /** Whether any of the patterns names a file of the repository. */
  async anyExists(patterns: readonly string[]): Promise<boolean> {
    for (const pattern of patterns) {
      const path = pattern.replace(/^\/+/, '');
      if (isGlob(path) ? (await this.files()).some((file) => fnmatch(path, file)) : await this.exists(path)) return true;
    }
    return false;
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
    if (!(await probe.anyExists(paths))) return false;
  }
  return true;
}
