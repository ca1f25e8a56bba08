/**
 * A note's `bodyHtml`: its Markdown rendered by markdown-it (CommonMark, GitLab's tables and strikethrough, bare
 * URLs linked) and safe by construction: raw HTML in the text is escaped, never passed through (so no script, no
 * event handler attribute, no style), and links whose scheme is not http(s), mailto or a relative path are left as
 * text (markdown-it's validateLink refuses javascript:, vbscript:, file: and data:). GitLab's references follow:
 * `@username` links to the user when such a user exists, and the prefixes kinds register (`#12` once issues exist,
 * noteables.ts) to what they name; anything else stays text. Code spans and blocks are never scanned.
 */
import MarkdownIt from 'markdown-it';
import type StateInline from 'markdown-it/lib/rules_inline/state_inline.mjs';
import type Token from 'markdown-it/lib/token.mjs';
import { escapeRegExp } from './regexp.js';

/** What a `#12`-style reference names, as the renderer links it. */
export interface NumberedReference {
  url: string;
  title: string;
  referenceType: string;
}

/** What the renderer knows of the references a text makes. */
export interface References {
  /** Users by lower-cased username. */
  users: ReadonlyMap<string, { id: number; username: string; name: string }>;
  /** For each registered prefix, what each number names (`referenceType`: GitLab's `issue`, `merge_request`, `epic`). */
  numbered: ReadonlyMap<string, ReadonlyMap<number, NumberedReference>>;
  /** The server's external URL, the base of user links. */
  externalUrl: string;
  /** Full path of the text's project, the base of its `/uploads/…` links; none for a text of no project. */
  projectPath?: string | null;
}

/** GitLab's username characters (User's path format): a mention ends where they do; a trailing dot is not part of it. */
const MENTION = /^@([A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?)/;
const NUMBERED = /^(\d{1,9})(?![\w])/;
/** A reference starts a text or follows a character that cannot be part of a word or address. */
const BOUNDARY = /[\s([{'"*_~>,;:!?-]/;

/** The usernames and numbers a text may reference (code included: over-asking costs one lookup, nothing shown). */
export function referencedIn(text: string, prefixes: readonly string[]): { usernames: string[]; numbers: Map<string, number[]> } {
  const usernames = new Set<string>();
  for (const m of text.matchAll(/(?:^|[^\w@.])@([A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?)/g)) usernames.add(m[1].toLowerCase());
  const numbers = new Map<string, number[]>();
  for (const prefix of prefixes) {
    const escaped = escapeRegExp(prefix);
    const found = new Set<number>();
    for (const m of text.matchAll(new RegExp(`(?:^|[^\\w])${escaped}(\\d{1,9})(?!\\w)`, 'g'))) found.add(Number(m[1]));
    if (found.size) numbers.set(prefix, [...found]);
  }
  return { usernames: [...usernames].slice(0, 100), numbers };
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for HTML, in text and in quoted attributes (Rails' ERB::Util.html_escape). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

function referenceRule(state: StateInline, silent: boolean): boolean {
  // A render without references (renderSingleLine) has markdown-it's empty env.
  const refs = state.env as Partial<References> | undefined;
  if (!refs?.users || !refs.numbered || refs.externalUrl === undefined) return false;
  const start = state.pos;
  const char = state.src[start];
  if (start > 0 && !BOUNDARY.test(state.src[start - 1])) return false;
  if (char === '@') {
    const match = MENTION.exec(state.src.slice(start));
    const user = match && refs.users.get(match[1].toLowerCase());
    if (!match || !user) return false;
    if (!silent) {
      const token = state.push('html_inline', '', 0);
      token.content =
        `<a href="${escapeHtml(`${refs.externalUrl}/${user.username}`)}" data-reference-type="user" data-user="${user.id}" ` +
        `class="gfm gfm-project_member js-user-link" title="${escapeHtml(user.name)}">@${escapeHtml(user.username)}</a>`;
    }
    state.pos += match[0].length;
    return true;
  }
  const named = refs.numbered.get(char);
  if (!named) return false;
  const match = NUMBERED.exec(state.src.slice(start + 1));
  const target = match && named.get(Number(match[1]));
  if (!match || !target) return false;
  if (!silent) {
    const token = state.push('html_inline', '', 0);
    const type = escapeHtml(target.referenceType);
    token.content = `<a href="${escapeHtml(target.url)}" data-reference-type="${type}" title="${escapeHtml(target.title)}" class="gfm gfm-${type}">${escapeHtml(char + match[1])}</a>`;
  }
  state.pos += 1 + match[0].length;
  return true;
}

const md = new MarkdownIt({ html: false, linkify: true, breaks: false });
md.inline.ruler.before('emphasis', 'gitlab_references', referenceRule);
// Links leave with GitLab's rel, and open nothing of the server's on the reader's behalf.
const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx].attrSet('rel', 'nofollow noreferrer noopener');
  uploadLink(tokens[idx], 'href', env as Partial<References>);
  return defaultLinkOpen(tokens, idx, options, env, self);
};
const defaultImage = md.renderer.rules.image!;
md.renderer.rules.image = (tokens, idx, options, env, self) => {
  uploadLink(tokens[idx], 'src', env as Partial<References>);
  return defaultImage(tokens, idx, options, env, self);
};

/**
 * GitLab's UploadLinkFilter: a link or image to `/uploads/…` (what the uploads API's `url` and `markdown` give) points
 * at the file in the text's project, `<external URL>/<project path>/uploads/…` (under the server alone for a text of no
 * project: a personal snippet's `/uploads/-/system/…`), keeping the written one in `data-canonical-src`.
 */
function uploadLink(token: Token, attr: 'href' | 'src', refs: Partial<References> | undefined): void {
  const value = token.attrGet(attr);
  if (!value?.startsWith('/uploads/') || refs?.externalUrl === undefined) return;
  token.attrSet(attr, `${refs.externalUrl}${refs.projectPath ? `/${encodeURI(refs.projectPath)}` : ''}${value}`);
  token.attrSet('data-canonical-src', value);
  if (attr === 'href') token.attrSet('data-link', 'true');
  token.attrJoin('class', 'gfm');
}

/**
 * A one-line field's HTML (GitLab's `single_line` pipeline: a label's description, a status message): its inline
 * Markdown, no paragraph around it, raw HTML escaped, no references.
 */
export function renderSingleLine(text: string): string {
  return md.renderInline(text);
}

/** The note's HTML. `html_inline` tokens are only the reference rule's own (raw HTML is off), built escaped above. */
export function renderMarkdown(text: string, references: References): string {
  return md.render(text, references);
}
