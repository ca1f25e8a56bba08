/** Validation errors and warnings, worded as GitLab's config entries word them. */

export class Problems {
  readonly errors: string[] = [];
  readonly warnings: string[] = [];

  /** An entry's validation error: GitLab writes `<location> <message>` and downcases all of it. */
  add(location: string, message: string): void {
    this.errors.push(`${location} ${message}`.toLowerCase());
  }

  /** An error in its own words (GitLab's strategy and tag errors are not downcased). */
  raw(message: string): void {
    this.errors.push(message);
  }

  warn(location: string, message: string): void {
    this.warnings.push(`${location} ${message}`);
  }

  /** Runs `check` and tells whether it added errors. */
  clean(check: () => void): boolean {
    const before = this.errors.length;
    check();
    return this.errors.length === before;
  }
}

/** GitLab's allowed-keys validator: `config contains unknown keys: a, b`. */
export function unknownKeys(p: Problems, location: string, keys: Iterable<string>, allowed: readonly string[]): void {
  const unknown = [...keys].filter((k) => !allowed.includes(k));
  if (unknown.length) p.add(location, `config contains unknown keys: ${unknown.join(', ')}`);
}
