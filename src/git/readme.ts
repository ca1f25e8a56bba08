/**
 * Which file of a tree is its README (GitLab's Tree#readme_path with Gitlab::FileDetector and MarkupHelper): a blob
 * named `readme…` in any case, one GitLab renders (Markdown, AsciiDoc and the other markups) before a plain one (no
 * extension, or `.txt`), the first of each in tree order; none otherwise.
 */
import type { TreeEntry } from './repository.js';

const README = /^readme[^/]*$/i;
const RENDERED = new Set(['mdown', 'mkd', 'mkdn', 'md', 'markdown', 'adoc', 'asciidoc', 'asc', 'textile', 'rdoc', 'org', 'creole', 'wiki', 'mediawiki', 'rst']);

function extension(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}

export function readmePath(entries: readonly TreeEntry[] | null): string | null {
  const readmes = (entries ?? []).filter((e) => e.type === 'blob' && README.test(e.path));
  const rendered = readmes.find((e) => RENDERED.has(extension(e.path)));
  const plain = readmes.find((e) => ['', 'txt'].includes(extension(e.path)));
  return (rendered ?? plain)?.path ?? null;
}
