/** Releases::Link's validations, in Rails' full messages; no database. */
export interface LinkInput {
  name: string;
  url: string;
  directAssetPath?: string | null;
  /** The deprecated name of `directAssetPath`. */
  filepath?: string | null;
  linkType?: string | null;
}

export interface LinkRow {
  id: number;
  releaseId: number;
  name: string;
  url: string;
  filepath: string | null;
  linkType: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface LinkDraft {
  name: string;
  url: string;
  filepath: string | null;
  linkType: string;
}

/** Releases::Link::FILEPATH_REGEX: a path from `/`, of word characters, dots and dashes, ending in a letter or digit. */
const FILEPATH = /^\/(?:[-.\w]+\/?)*[\da-zA-Z]+$/;
const FILEPATH_MAX = 128;
const SCHEMES = ['http:', 'https:', 'ftp:'];

/** The url's problem (AddressableUrlValidator with GitLab's schemes), or null. */
function urlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be a valid URL';
  }
  if (!SCHEMES.includes(parsed.protocol)) return 'is blocked: Only allowed schemes are http, https, ftp';
  return null;
}

/**
 * The full messages (`Url can't be blank`, `Filepath is in an invalid format`, `Name has already been taken`) of one
 * link, given the release's other links.
 */
export function linkErrors(link: LinkDraft, others: readonly LinkDraft[]): string[] {
  const errors: string[] = [];
  if (!link.name.trim()) errors.push("Name can't be blank");
  else if (others.some((o) => o.name === link.name)) errors.push('Name has already been taken');
  if (!link.url.trim()) errors.push("Url can't be blank");
  else {
    const problem = urlProblem(link.url);
    if (problem) errors.push(`Url ${problem}`);
    else if (others.some((o) => o.url === link.url)) errors.push('Url has already been taken');
  }
  if (link.filepath) {
    if (link.filepath.length > FILEPATH_MAX) errors.push(`Filepath is too long (maximum is ${FILEPATH_MAX} characters)`);
    if (!FILEPATH.test(link.filepath)) errors.push('Filepath is in an invalid format');
    else if (others.some((o) => o.filepath === link.filepath)) errors.push('Filepath has already been taken');
  }
  return errors;
}

/**
 * The problems of the links a release is created with, as the release's own validation words them (`url has already
 * been taken`, attribute lower-case after `Links`): each link against those before it.
 */
export function linkProblems(links: readonly LinkDraft[]): string[] {
  return [...new Set(links.flatMap((link, i) => linkErrors(link, links.slice(0, i)).map((e) => e.charAt(0).toLowerCase() + e.slice(1))))];
}
