/**
 * A job's test coverage from its log, as GitLab's Gitlab::Ci::Trace::Stream#extract_coverage reads it with the job's
 * `coverage` regular expression: the last line that matches, its last match (its last group, when the expression has groups), the first number in it. Pure.
 */

/**
 * Lines longer than this are not searched: GitLab runs the expression with RE2, which takes linear time; JavaScript's
 * engine backtracks, so a long line and an unlucky expression could run for a very long time.
 */
const MAX_LINE = 64 * 1024;

/** The expression of `/…/flags` (or a bare pattern), or null when it does not compile. */
function compile(pattern: string): RegExp | null {
  const literal = /^\/(.*)\/([a-z]*)$/s.exec(pattern);
  try {
    return new RegExp(literal ? literal[1] : pattern, `${(literal?.[2] ?? '').replace(/[^imsu]/g, '')}g`);
  } catch {
    return null;
  }
}

export function extractCoverage(log: string, pattern: string | null | undefined): number | null {
  if (!pattern) return null;
  const regex = compile(pattern);
  if (!regex) return null;
  const lines = log.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i].replace(/\r$/, '');
    if (line.length > MAX_LINE) continue;
    const matches = [...line.matchAll(regex)].filter((m) => m[0] !== '');
    const last = matches.at(-1);
    if (!last) continue;
    // Ruby's `scan(line).flatten.last`: with groups, the last group of the last match.
    const text = last.length > 1 ? (last.at(-1) ?? '') : last[0];
    const number = /\d+(\.\d+)?/.exec(text);
    if (number) return Number(number[0]);
  }
  return null;
}
