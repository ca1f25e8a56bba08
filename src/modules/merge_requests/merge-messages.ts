/**
 * GitLab's Gitlab::MergeRequests::MessageGenerator: a project's merge and squash commit templates with their
 * `%{…}` placeholders filled from the merge request. A placeholder whose value is blank takes its line with it (and
 * the blank line before it when a blank line or the end follows); a `%{name}` GitLab does not know stays as written.
 */
import type { CommitInfo } from '../../git/repository.js';
import { toSentence } from '../resource_events/issuables.js';
import { escapeRegExp } from '../../regexp.js';

/** MergeRequestDiff::COMMITS_SAFE_SIZE: the newest commits `recent_commits` reads. */
const RECENT_COMMITS = 100;
/** A commit body above this many bytes is left out of %{all_commits}. */
const ALL_COMMITS_BODY_LIMIT = 100 * 1024;

/** What the placeholders are filled from. */
export interface MessageSources {
  sourceBranch: string;
  targetBranch: string;
  title: string;
  description: string | null;
  /** The merge request's full reference (`group/project!1`). */
  reference: string;
  url: string;
  /** References of the closing issues the viewer may read. */
  closingIssues: readonly string[];
  /** The merge request's commits, newest first. */
  commits(): Promise<readonly CommitInfo[]>;
  /** The users who approved it, first approver first, with their commit addresses. */
  approvers(): Promise<readonly { name: string; email: string }[]>;
  /** Who merges it (GitLab: metrics' merged_by, else merge_user, else the current user), and the author. */
  mergedBy: { name: string; email: string } | null;
  author: { name: string; email: string } | null;
}

type Filler = (sources: MessageSources, squash: boolean) => Promise<string | null> | string | null;

/** Commit#description?: the message has more than its title line. */
function hasDescription(commit: CommitInfo): boolean {
  const newline = commit.message.indexOf('\n');
  return newline >= 0 && commit.message.slice(newline + 1).trim().length > 0;
}

const isMerge = (commit: CommitInfo) => commit.parentIds.length > 1;

async function recentCommits(sources: MessageSources): Promise<readonly CommitInfo[]> {
  return (await sources.commits()).slice(0, RECENT_COMMITS);
}

/** MessageGenerator::PLACEHOLDERS as GitLab 16 has them. */
const PLACEHOLDERS: Record<string, Filler> = {
  source_branch: (s) => s.sourceBranch,
  target_branch: (s) => s.targetBranch,
  title: (s) => s.title,
  issues: (s) => (s.closingIssues.length ? `Closes ${toSentence([...s.closingIssues])}` : null),
  description: (s) => s.description,
  reference: (s) => s.reference,
  first_commit: async (s) => {
    const commits = await s.commits();
    return commits.length ? commits[commits.length - 1]!.message.trim() : null;
  },
  first_multiline_commit: async (s) => {
    const oldestFirst = (await recentCommits(s)).filter((c) => !isMerge(c)).reverse();
    return oldestFirst.find(hasDescription)?.message.trim() || s.title;
  },
  url: (s) => s.url,
  approved_by: async (s) => (await s.approvers()).map((u) => `Approved-by: ${u.name} <${u.email}>`).join('\n'),
  merged_by: (s) => `${s.mergedBy?.name ?? ''} <${s.mergedBy?.email ?? ''}>`,
  co_authored_by: async (s, squash) => {
    const commitAuthor = squash ? s.author : s.mergedBy;
    const authors = new Map<string, string>();
    for (const commit of await recentCommits(s)) if (!authors.has(commit.authorEmail)) authors.set(commit.authorEmail, commit.authorName);
    if (commitAuthor) authors.delete(commitAuthor.email);
    return [...authors].map(([email, name]) => `Co-authored-by: ${name} <${email}>`).join('\n');
  },
  all_commits: async (s) =>
    (await recentCommits(s))
      .filter((c) => !isMerge(c))
      .map((c) => (Buffer.byteLength(c.message) > ALL_COMMITS_BODY_LIMIT ? `* ${c.message.split('\n', 1)[0]}\n\n-- Skipped commit body exceeding 100KiB in size.` : `* ${c.message.trim()}`))
      .join('\n\n'),
};

const PLACEHOLDER = new RegExp(`%\\{(${Object.keys(PLACEHOLDERS).map(escapeRegExp).join('|')})\\}`, 'g');

/** Ruby's `blank?` of a value. */
const blank = (value: string | null) => value == null || value.trim() === '';

/** MessageGenerator#replace_placeholders: the template filled in (`squash`: for the squash commit). */
export async function fillTemplate(template: string, sources: MessageSources, squash: boolean): Promise<string> {
  let message = template.replace(/\r/g, '');
  const used = [...new Set([...message.matchAll(PLACEHOLDER)].map((m) => m[1]!))];
  const values = new Map<string, string | null>();
  for (const name of used) values.set(`%{${name}}`, await PLACEHOLDERS[name]!(sources, squash));
  const empty = [...values].filter(([, v]) => blank(v)).map(([k]) => escapeRegExp(k));
  if (empty.length) {
    const names = `(?:${empty.join('|')})`;
    // A blank line or the end after it: the blank line before it goes too; otherwise only its own line.
    message = message.replace(new RegExp(`\\n\\n${names}(\\n\\n|(?=\\n?$))`, 'g'), '$1');
    message = message.replace(new RegExp(`^${names}\\n`, 'gm'), '');
  }
  if (values.size) message = message.replace(new RegExp([...values.keys()].map(escapeRegExp).join('|'), 'g'), (key) => values.get(key) ?? '');
  return message;
}

