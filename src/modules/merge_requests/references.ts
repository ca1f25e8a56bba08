/**
 * The issues a merge request's text names, as GitLab's reference extractors read it: every issue reference (`#12`,
 * `group/project#12`, an issue's URL) is a mention; those a closing pattern introduces are to be closed on merge
 * (Gitlab::ClosingIssueExtractor with GitLab's default `issue_closing_pattern`: "Closes #1", "Fixes #1 and #2",
 * "Resolves: group/project#3", "Implements issues #4, #5").
 */
import { escapeRegExp } from '../../regexp.js';

/** An issue named in text: in the merge request's own project (`path` null) or another, by full path. */
export interface IssueRef {
  path: string | null;
  iid: number;
}

const PATH = String.raw`[A-Za-z0-9_][A-Za-z0-9_.\-]*(?:/[A-Za-z0-9_][A-Za-z0-9_.\-]*)+`;

/** An issue reference: a short one (`#1`), a cross-project one (`group/project#1`), or an issue URL under `base`. */
function refPattern(base: string): string {
  const url = `${escapeRegExp(base.replace(/\/+$/, ''))}/(?<urlPath>${PATH})/-/issues/(?<urlIid>\\d+)`;
  return String.raw`(?:${url}|(?<![\w/.\-#])(?:(?<path>${PATH}))?#(?<iid>\d+)(?![\w]))`;
}

/** GitLab's default issue_closing_pattern, with its `%{issue_ref}` filled in. */
function closingPattern(base: string): RegExp {
  const ref = refPattern(base).replace(/\(\?<\w+>/g, '(?:');
  const verbs = String.raw`(?:[Cc]los(?:e[sd]?|ing)|\b[Ff]ix(?:e[sd]|ing)?|\b[Rr]esolv(?:e[sd]?|ing)|\b[Ii]mplement(?:s|ed|ing)?)`;
  return new RegExp(String.raw`\b${verbs}(?::?) +(?:(?:issues? +)?${ref}(?:(?: *,? +and +| *,? *)?))+`, 'g');
}

function refsIn(text: string, base: string): IssueRef[] {
  const found: IssueRef[] = [];
  for (const m of text.matchAll(new RegExp(refPattern(base), 'g'))) {
    const g = m.groups ?? {};
    if (g.urlIid) found.push({ path: g.urlPath, iid: Number(g.urlIid) });
    else found.push({ path: g.path ?? null, iid: Number(g.iid) });
  }
  return found;
}

const key = (r: IssueRef) => `${r.path ?? ''}#${r.iid}`;

function unique(refs: IssueRef[]): IssueRef[] {
  const seen = new Map<string, IssueRef>();
  for (const r of refs) if (Number.isSafeInteger(r.iid) && r.iid > 0) seen.set(key(r), r);
  return [...seen.values()];
}

/** The issues `text` names (mentions) and those it closes (a closing pattern's references), each once. */
export function issueReferences(text: string, base: string): { mentioned: IssueRef[]; closing: IssueRef[] } {
  // Bounded: GitLab's descriptions are at most 1 MB; a pathological text costs one linear scan per pattern.
  const closing = [...text.matchAll(closingPattern(base))].flatMap((m) => refsIn(m[0], base));
  return { mentioned: unique(refsIn(text, base)), closing: unique(closing) };
}
