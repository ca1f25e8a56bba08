/**
 * Regular expressions from CI configurations (`=~ /re/i`, `only: [/^release-.*$/]`, `coverage: /…/`), which GitLab
 * runs on RE2 (Gitlab::UntrustedRegexp): linear time, no backreferences or lookaround. JavaScript's engine
 * backtracks, so a hostile pattern could stall the server; these run on V8's linear-time engine instead (the `l`
 * flag), which refuses what it cannot run in linear time, as RE2 does. That engine has no `i` flag, so case-
 * insensitive patterns are rewritten with both cases of each letter.
 */
import { setFlagsFromString } from 'node:v8';

// Only enables the `l` flag; no existing expression changes behaviour.
setFlagsFromString('--enable-experimental-regexp-engine');

/** Longest pattern accepted (RE2 has its own program-size limit). */
const MAX_PATTERN_LENGTH = 4096;

const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alpha: 'a-zA-Z',
  digit: '0-9',
  alnum: 'a-zA-Z0-9',
  upper: 'A-Z',
  lower: 'a-z',
  space: ' \\t\\r\\n\\v\\f',
  word: '\\w',
  xdigit: '0-9A-Fa-f',
  punct: '!-\\/:-@\\[-`{-~',
};

const isLetter = (c: string) => c.toLowerCase() !== c.toUpperCase() && c.length === 1;
const otherCase = (c: string) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase());

/** The escape starting at `i` (a backslash): the whole token, `\x41`, `\u{…}` and `\p{…}` included. */
function escapeAt(source: string, i: number): string {
  const next = source[i + 1] ?? '';
  if (next === 'x') return source.slice(i, i + 4);
  if (next === 'u') return source[i + 2] === '{' ? source.slice(i, source.indexOf('}', i) + 1 || i + 2) : source.slice(i, i + 6);
  if ((next === 'p' || next === 'P') && source[i + 2] === '{') return source.slice(i, source.indexOf('}', i) + 1 || i + 2);
  if (next === 'c') return source.slice(i, i + 3);
  return source.slice(i, i + 2);
}

/** RE2 escapes JavaScript spells differently. */
function translateEscape(token: string): string {
  if (token === '\\A') return '^';
  if (token === '\\z') return '$';
  return token;
}

/** A character class body (between `[` and `]`), POSIX classes translated, letters of both cases when folding. */
function translateClass(body: string, fold: boolean): string {
  let out = '';
  let i = 0;
  while (i < body.length) {
    const posix = /^\[:(\^?)(\w+):\]/.exec(body.slice(i));
    if (posix && POSIX_CLASSES[posix[2]] && !posix[1]) {
      out += POSIX_CLASSES[posix[2]];
      i += posix[0].length;
      continue;
    }
    if (body[i] === '\\') {
      const token = escapeAt(body, i);
      out += token;
      i += token.length;
      continue;
    }
    const c = body[i];
    if (fold && body[i + 1] === '-' && i + 2 < body.length && body[i + 2] !== '\\') {
      const end = body[i + 2];
      out += `${c}-${end}`;
      if (isLetter(c) && isLetter(end) && (c === c.toLowerCase()) === (end === end.toLowerCase())) out += `${otherCase(c)}-${otherCase(end)}`;
      i += 3;
      continue;
    }
    out += fold && isLetter(c) ? c + otherCase(c) : c;
    i += 1;
  }
  return out;
}

/** RE2 syntax to JavaScript syntax: `(?P<name>`, `\A`, `\z`, POSIX classes, and case folding by rewriting. */
function translate(source: string, fold: boolean): string {
  let out = '';
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (c === '\\') {
      const token = escapeAt(source, i);
      out += translateEscape(token);
      i += token.length;
    } else if (c === '[') {
      let end = i + 1;
      if (source[end] === '^') end++;
      if (source[end] === ']') end++;
      while (end < source.length && source[end] !== ']') {
        if (source[end] === '\\') end += escapeAt(source, end).length;
        else if (source.startsWith('[:', end)) end = Math.max(source.indexOf(':]', end + 2) + 2, end + 1);
        else end++;
      }
      const negated = source[i + 1] === '^';
      out += `[${negated ? '^' : ''}${translateClass(source.slice(i + (negated ? 2 : 1), end), fold)}]`;
      i = end + 1;
    } else if (source.startsWith('(?P<', i) || source.startsWith('(?<', i)) {
      const close = source.indexOf('>', i);
      const name = close < 0 ? '' : source.slice(source.indexOf('<', i) + 1, close);
      // A named group; `(?<=`/`(?<!` lookbehinds have no name and stay as written (the engine refuses them).
      if (close < 0 || !/^\w+$/.test(name)) {
        out += c;
        i += 1;
      } else {
        out += `(?<${name}>`;
        i = close + 1;
      }
    } else {
      out += fold && isLetter(c) ? `[${c}${otherCase(c)}]` : c;
      i += 1;
    }
  }
  return out;
}

interface RegexpOptions {
  ignoreCase?: boolean;
  /** `^` and `$` at line boundaries (RE2's `m`). */
  multiline?: boolean;
  /** `.` matches newlines (RE2's `s`). */
  dotAll?: boolean;
}

/** A linear-time RegExp for an RE2-style pattern, or null when it is not a valid one. */
export function safeRegexp(source: string, options: RegexpOptions = {}): RegExp | null {
  if (source.length > MAX_PATTERN_LENGTH) return null;
  let fold = options.ignoreCase ?? false;
  let pattern = source;
  const inline = /^\(\?([imsU]+)\)/.exec(pattern);
  if (inline) {
    fold ||= inline[1].includes('i');
    pattern = pattern.slice(inline[0].length);
  }
  const flags = `${options.multiline || inline?.[1].includes('m') ? 'm' : ''}${options.dotAll || inline?.[1].includes('s') ? 's' : ''}l`;
  try {
    return new RegExp(translate(pattern, fold), flags);
  } catch {
    return null;
  }
}

/** GitLab's Ruby-syntax regexp literal: `/source/flags`, flags among `i`, `m`, `s` and `U`. */
export function isRegexpLiteral(text: string): boolean {
  return /^\/[\s\S]+\/[imsU]*$/.test(text);
}

/** The RegExp of a `/source/flags` literal (`U`, ungreedy, does not change whether a text matches); null when invalid. */
export function regexpLiteral(text: string): RegExp | null {
  const match = /^\/([\s\S]+)\/([imsU]*)$/.exec(text);
  if (!match) return null;
  const flags = match[2];
  return safeRegexp(match[1].replace(/\\\//g, '/'), { ignoreCase: flags.includes('i'), multiline: flags.includes('m'), dotAll: flags.includes('s') });
}
