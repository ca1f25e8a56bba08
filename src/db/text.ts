/**
 * Case-insensitive text filters. Prisma's `mode: 'insensitive'` compiles `equals` to `ILIKE $1` and `contains` to
 * `ILIKE '%' || $1 || '%'`, passing the value in as a pattern: `%` and `_` in user input would match anything and a
 * trailing backslash is an invalid pattern (PostgreSQL 22025). Every such filter goes through these.
 */

/** The value as a LIKE pattern that matches only itself (PostgreSQL's default escape character is `\`). */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, '\\$&');
}

/** Equal to `value`, ignoring case. */
export function equalsIgnoringCase(value: string) {
  return { equals: escapeLike(value), mode: 'insensitive' as const };
}

/** Contains `value`, ignoring case. */
export function containsIgnoringCase(value: string) {
  return { contains: escapeLike(value), mode: 'insensitive' as const };
}

/** Starts with `value`, ignoring case. */
export function startsWithIgnoringCase(value: string) {
  return { startsWith: escapeLike(value), mode: 'insensitive' as const };
}
