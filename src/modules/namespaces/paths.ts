/** GitLab's rules for namespace and project paths (and the alternative it suggests for a taken one) and visibility levels. */

const PATH = /^(?:[a-zA-Z0-9_.][a-zA-Z0-9_.-]*[a-zA-Z0-9_-]|[a-zA-Z0-9_])$/;

export const PATH_RULE =
  "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'";

export function isValidPath(path: string): boolean {
  return path.length <= 255 && PATH.test(path) && !/\.(git|atom)$/i.test(path);
}

/** A URL-safe path made from a name, as GitLab derives a project path from its name. */
export function pathFromName(name: string): string {
  return name
    .trim()
    .replace(/[^a-zA-Z0-9_.-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .replace(/\.(git|atom)$/i, '');
}

/** The base of a suggestion: what follows `@` dropped, invalid characters removed, `.git`/`.atom`/`.` endings and leading `-` stripped. */
export function slugForSuggestion(input: string): string {
  let slug = input.split('@')[0].replace(/[^a-zA-Z0-9_.-]/g, '');
  let previous;
  do {
    previous = slug;
    slug = slug.replace(/(\.git|\.atom|\.)$/i, '');
  } while (slug !== previous);
  slug = slug.replace(/^-+/, '');
  return slug || 'blank';
}

/** Candidates in GitLab's order: slug, slug1 … slug4, then slug + a time-derived number. */
export function* suggestionCandidates(slug: string, now: Date = new Date()): Generator<string> {
  yield slug;
  for (let i = 1; i <= 4; i++) yield `${slug}${i}`;
  const onejan = Date.UTC(now.getUTCFullYear(), 0, 1);
  const week = Math.ceil(((now.getTime() - onejan) / 86400000 + new Date(onejan).getUTCDay() + 1) / 7);
  const base = Number(`${String(now.getUTCMilliseconds()).padStart(3, '0')}${String(now.getUTCMinutes()).padStart(2, '0')}${String(week).padStart(2, '0')}`);
  for (let attempt = 0; attempt < 100; attempt++) yield `${slug}${base + attempt}`;
}

/** Visibility levels, lowest first: a child may not be more visible than its parent. */
export type Visibility = 'private' | 'internal' | 'public';

export const VISIBILITY_RANK: Record<Visibility, number> = { private: 0, internal: 10, public: 20 };
