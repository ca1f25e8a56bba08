/**
 * Ruby's `File.fnmatch?` with FNM_PATHNAME | FNM_DOTMATCH | FNM_EXTGLOB, as GitLab matches `changes:` and `exists:`
 * paths: `*` and `?` stop at `/`, `**\/` crosses directories, `[…]` classes, `{a,b}` alternatives. Matched by
 * dynamic programming over (pattern position, path position), so no pattern takes more than their product in time.
 */

/** Longest pattern and path considered; beyond, nothing matches. */
const MAX_PATTERN = 1024;
const MAX_PATH = 4096;
/** Alternatives a pattern's braces may expand to. */
const MAX_ALTERNATIVES = 256;

type Token =
  | { kind: 'char'; c: string }
  | { kind: 'any' }
  | { kind: 'star' }
  | { kind: 'globstar' }
  /** Any characters, `/` included (GitLab's wildcard include paths' `**`). */
  | { kind: 'anything' }
  | { kind: 'class'; negated: boolean; test: (c: string) => boolean };

/** `{a,b}` alternatives, nested ones too, up to MAX_ALTERNATIVES; a pattern without a closed brace is itself. */
function expandBraces(pattern: string): string[] {
  let depth = 0;
  let open = -1;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (c === '{' && depth++ === 0) open = i;
    else if (c === '}' && depth > 0 && --depth === 0) {
      const parts: string[] = [];
      let start = open + 1;
      let inner = 0;
      for (let j = open + 1; j < i; j++) {
        const d = pattern[j];
        if (d === '\\') j++;
        else if (d === '{') inner++;
        else if (d === '}') inner--;
        else if (d === ',' && inner === 0) {
          parts.push(pattern.slice(start, j));
          start = j + 1;
        }
      }
      parts.push(pattern.slice(start, i));
      const out: string[] = [];
      for (const part of parts) {
        for (const expanded of expandBraces(pattern.slice(0, open) + part + pattern.slice(i + 1))) {
          if (out.length >= MAX_ALTERNATIVES) return out;
          out.push(expanded);
        }
      }
      return out;
    }
  }
  return [pattern];
}

function classAt(pattern: string, i: number): { token: Token; end: number } | null {
  let j = i + 1;
  const negated = pattern[j] === '!' || pattern[j] === '^';
  if (negated) j++;
  const ranges: [string, string][] = [];
  let first = true;
  while (j < pattern.length && (pattern[j] !== ']' || first)) {
    first = false;
    let lo = pattern[j];
    if (lo === '\\' && j + 1 < pattern.length) lo = pattern[++j];
    let hi = lo;
    if (pattern[j + 1] === '-' && j + 2 < pattern.length && pattern[j + 2] !== ']') {
      hi = pattern[j + 2] === '\\' && j + 3 < pattern.length ? pattern[j + 3] : pattern[j + 2];
      j += pattern[j + 2] === '\\' ? 3 : 2;
    }
    ranges.push([lo, hi]);
    j++;
  }
  if (j >= pattern.length) return null;
  const test = (c: string) => ranges.some(([lo, hi]) => c >= lo && c <= hi) !== negated;
  return { token: { kind: 'class', negated, test }, end: j + 1 };
}

function tokens(pattern: string): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < pattern.length; ) {
    const c = pattern[i];
    if (c === '*' && pattern[i + 1] === '*' && pattern[i + 2] === '/' && (i === 0 || pattern[i - 1] === '/')) {
      out.push({ kind: 'globstar' });
      i += 3;
    } else if (c === '*') {
      while (pattern[i] === '*') i++;
      out.push({ kind: 'star' });
    } else if (c === '?') {
      out.push({ kind: 'any' });
      i++;
    } else if (c === '[' && classAt(pattern, i)) {
      const { token, end } = classAt(pattern, i)!;
      out.push(token);
      i = end;
    } else if (c === '\\' && i + 1 < pattern.length) {
      out.push({ kind: 'char', c: pattern[i + 1] });
      i += 2;
    } else {
      out.push({ kind: 'char', c });
      i++;
    }
  }
  return out;
}

function matchTokens(toks: Token[], path: string): boolean {
  const n = path.length;
  // next[ti]: whether toks[pi+1..] matches path[ti..]; row[ti]: the same for toks[pi..].
  let next = new Uint8Array(n + 1);
  next[n] = 1;
  for (let pi = toks.length - 1; pi >= 0; pi--) {
    const t = toks[pi];
    const row = new Uint8Array(n + 1);
    // For `**/`: whether path[ti..] starts with "<segment>/" after which row matches again.
    let segment = 0;
    for (let ti = n; ti >= 0; ti--) {
      const c = path[ti];
      switch (t.kind) {
        case 'char':
          row[ti] = ti < n && c === t.c ? next[ti + 1] : 0;
          break;
        case 'any':
          row[ti] = ti < n && c !== '/' ? next[ti + 1] : 0;
          break;
        case 'class':
          row[ti] = ti < n && c !== '/' && t.test(c) ? next[ti + 1] : 0;
          break;
        case 'star':
          row[ti] = next[ti] || (ti < n && c !== '/' && row[ti + 1]) ? 1 : 0;
          break;
        case 'anything':
          row[ti] = next[ti] || (ti < n && row[ti + 1]) ? 1 : 0;
          break;
        case 'globstar':
          if (ti < n) segment = c === '/' ? row[ti + 1] : segment;
          row[ti] = next[ti] || (ti < n && segment) ? 1 : 0;
          break;
      }
    }
    next = row;
  }
  return next[0] === 1;
}

/** Whether `path` matches the glob `pattern`. */
export function fnmatch(pattern: string, path: string): boolean {
  if (pattern.length > MAX_PATTERN || path.length > MAX_PATH) return false;
  return expandBraces(pattern).some((alternative) => matchTokens(tokens(alternative), path));
}

/** Whether a pattern has glob characters (a literal path is looked up directly). */
export function isGlob(pattern: string): boolean {
  return /[*?[{]/.test(pattern);
}

/**
 * GitLab's Repository#search_files_by_wildcard_path, which `include: local` wildcards use (not fnmatch): the path
 * is literal but for `**` (anything, `/` included) and `*` (anything but `/`), matched against whole paths. So
 * `configs/**.yml` takes every `.yml` file under `configs/`, and `configs/**\/*.yml` only those in its subfolders.
 */
export function wildcardPathMatcher(pattern: string): (path: string) => boolean {
  if (pattern.length > MAX_PATTERN) return () => false;
  const toks: Token[] = pattern.split('**').flatMap((part, i) => [
    ...(i > 0 ? [{ kind: 'anything' } as const] : []),
    ...part.split('*').flatMap((literal, j) => [...(j > 0 ? [{ kind: 'star' } as const] : []), ...[...literal].map((c) => ({ kind: 'char', c }) as const)]),
  ]);
  return (path) => path.length <= MAX_PATH && !path.includes('\n') && matchTokens(toks, path);
}
