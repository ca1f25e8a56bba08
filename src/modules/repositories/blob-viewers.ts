/**
 * What GitLab decides about a file from its name and bytes, for RepositoryBlob and SnippetBlob: its LFS pointer
 * (Gitlab::Git::Blob#lfs_pointer?), its file type (Gitlab::FileDetector), its language (the Rouge lexer tag GitLab's
 * highlighter picks; here from the file name, by a table of well-known names and extensions, not Rouge's content
 * guessing), its viewers (Blob#simple_viewer and #rich_viewer with BlobViewer's limits) and its plainly highlighted
 * lines (Gitlab::Highlight with no token colouring: the lines as GitLab's HTML formatter wraps them).
 */
import { basename, extname } from 'node:path';
import { escapeHtml } from '../../markdown.js';
import { AVATAR_EXTENSIONS } from '../../uploads/avatars.js';

/** Gitaly reads LFS pointers among blobs of at most this many bytes. */
export const LFS_POINTER_MAX_SIZE = 200;

/** GitLab's Gitlab::Git::Blob::MAX_DATA_DISPLAY_SIZE: the bytes of a blob its GraphQL reads load. */
export const MAX_DATA_DISPLAY_SIZE = 10 * 1024 * 1024;

/** An LFS pointer file's object name and size, or null for anything else (Gitlab::Git::Blob#lfs_pointer?). */
export function lfsPointer(content: Buffer | null | undefined): { oid: string; size: number } | null {
  if (!content || content.length > LFS_POINTER_MAX_SIZE) return null;
  const text = content.toString('utf8');
  if (!text.startsWith('version https://git-lfs.github.com/spec/v1')) return null;
  const oid = /^oid sha256:([0-9a-f]{64})$/m.exec(text);
  const size = /^size (\d+)$/m.exec(text);
  return oid && size ? { oid: oid[1], size: Number(size[1]) } : null;
}

/** Binary content as git decides: a NUL in the first 8000 bytes. */
export function isBinary(content: Buffer): boolean {
  return content.subarray(0, 8000).includes(0);
}

/** Gitlab::FileDetector::PATTERNS, in its order: a name (compared ignoring case) or a pattern. */
const FILE_TYPES: [string, string | RegExp][] = [
  ['readme', /^readme[^/]*$/i],
  ['changelog', /^(changelog|history|changes|news)[^/]*$/i],
  ['license', /^((un)?licen[sc]e|copying)(\.[^/]+)?$/i],
  ['contributing', /^contributing[^/]*$/i],
  ['version', 'version'],
  ['avatar', /^logo\.(png|jpg|gif)$/],
  ['issue_template', /^\.gitlab\/issue_templates\/[^/]+\.md$/],
  ['merge_request_template', /^\.gitlab\/merge_request_templates\/[^/]+\.md$/],
  ['metrics_dashboard', /^\.gitlab\/dashboards\/[^/]+\.yml$/],
  ['xcode_config', /^[^/]*\.(xcodeproj|xcworkspace)(\/.+)?$/],
  ['gitignore', '.gitignore'],
  ['gitlab_ci', '.gitlab-ci.yml'],
  ['route_map', '.gitlab/route-map.yml'],
  ['cargo_toml', 'Cargo.toml'],
  ['cartfile', /^Cartfile[^/]*$/],
  ['composer_json', 'composer.json'],
  ['gemfile', /^(Gemfile|gems\.rb)$/],
  ['gemfile_lock', 'Gemfile.lock'],
  ['gemspec', /^[^/]*\.gemspec$/],
  ['godeps_json', 'Godeps.json'],
  ['go_mod', 'go.mod'],
  ['go_sum', 'go.sum'],
  ['package_json', 'package.json'],
  ['podfile', 'Podfile'],
  ['podspec_json', /^[^/]*\.podspec\.json$/],
  ['podspec', /^[^/]*\.podspec$/],
  ['requirements_txt', /^[^/]*requirements\.txt$/],
  ['yarn_lock', 'yarn.lock'],
  ['openapi', /.*(openapi|swagger).*\.(yaml|yml|json)$/i],
  ['jupyter', /.*\.ipynb$/i],
  ['codeowners', 'CODEOWNERS'],
];

function typeOf(path: string): string | null {
  for (const [type, search] of FILE_TYPES) {
    if (typeof search === 'string' ? path.toLowerCase() === search.toLowerCase() : search.test(path)) return type;
  }
  return null;
}

/** Blob#file_type: the type of its path, else of its name; null for an ordinary file. */
export function fileType(path: string): string | null {
  return typeOf(path) ?? typeOf(basename(path));
}

/** Rouge lexer tags by file name, then by extension (a well-known subset of Rouge's lexers' filename globs). */
const LANGUAGE_NAMES: Record<string, string> = {
  dockerfile: 'docker',
  makefile: 'make',
  gnumakefile: 'make',
  gemfile: 'ruby',
  rakefile: 'ruby',
  podfile: 'ruby',
  vagrantfile: 'ruby',
  'cmakelists.txt': 'cmake',
  '.gitlab-ci.yml': 'yaml',
  jenkinsfile: 'groovy',
};
const LANGUAGE_EXTENSIONS: Record<string, string> = {
  rb: 'ruby', gemspec: 'ruby', rake: 'ruby', ru: 'ruby', erb: 'erb',
  js: 'javascript', mjs: 'javascript', cjs: 'javascript', jsx: 'javascript',
  ts: 'typescript', tsx: 'tsx', mts: 'typescript', cts: 'typescript',
  json: 'json', yml: 'yaml', yaml: 'yaml', toml: 'toml', xml: 'xml', svg: 'xml', html: 'html', htm: 'html',
  css: 'css', scss: 'scss', sass: 'sass', less: 'less', vue: 'vue',
  py: 'python', pyw: 'python', go: 'go', rs: 'rust', java: 'java', kt: 'kotlin', kts: 'kotlin', scala: 'scala',
  groovy: 'groovy', gradle: 'groovy', swift: 'swift', m: 'objective_c', mm: 'objective_cpp',
  c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp', cxx: 'cpp', hpp: 'cpp', hh: 'cpp', cs: 'csharp', fs: 'fsharp',
  php: 'php', pl: 'perl', pm: 'perl', lua: 'lua', r: 'r', jl: 'julia', hs: 'haskell', ex: 'elixir', exs: 'elixir',
  erl: 'erlang', clj: 'clojure', dart: 'dart', sh: 'shell', bash: 'shell', zsh: 'shell', ps1: 'powershell',
  sql: 'sql', md: 'markdown', markdown: 'markdown', mdown: 'markdown', mkd: 'markdown', rst: 'rst',
  adoc: 'asciidoc', asciidoc: 'asciidoc', tex: 'tex', proto: 'protobuf', graphql: 'graphql', gql: 'graphql',
  tf: 'terraform', hcl: 'hcl', ini: 'ini', cfg: 'ini', properties: 'properties', diff: 'diff', patch: 'diff',
  csv: 'plaintext', txt: 'plaintext', ipynb: 'json', nix: 'nix', zig: 'zig', elm: 'elm', ml: 'ocaml', vim: 'viml',
};

/** The Rouge tag GitLab's highlighter would use for a file (`plaintext` when no lexer knows the name). */
export function language(path: string): string {
  const name = basename(path).toLowerCase();
  return LANGUAGE_NAMES[name] ?? LANGUAGE_EXTENSIONS[extension(path)] ?? 'plaintext';
}

/** Whether the file's extension is one a language knows (Blob#known_extension?). */
function knownExtension(path: string): boolean {
  return extension(path) in LANGUAGE_EXTENSIONS;
}

/** Blob#extension: the extension without its dot, in lower case. */
export function extension(path: string): string {
  return extname(path).toLowerCase().replace(/^\./, '');
}

const MB = 1024 * 1024;

/** How a viewer kind loads: server-side, client-side or static (BlobViewer::ServerSide, ClientSide, Static). */
const LOADING = {
  server: { loadAsync: true, collapseLimit: 2 * MB, sizeLimit: 5 * MB },
  client: { loadAsync: false, collapseLimit: 10 * MB, sizeLimit: 50 * MB },
  static: { loadAsync: false, collapseLimit: null, sizeLimit: null },
} as const;

interface ViewerClass {
  partialName: string;
  loading: keyof typeof LOADING;
  binary: boolean;
  extensions?: readonly string[];
  fileTypes?: readonly string[];
  /** Overrides of the loading kind's limits (BlobViewer::Text). */
  collapseLimit?: number;
  sizeLimit?: number;
}

const MARKUP_EXTENSIONS = ['mdown', 'mkd', 'mkdn', 'md', 'markdown', 'rmd', 'adoc', 'ad', 'asciidoc', 'textile', 'rdoc', 'org', 'creole', 'wiki', 'mediawiki', 'rst'];

/** Blob::RICH_VIEWERS, binary ones first as GitLab sorts them. */
const RICH_VIEWERS: ViewerClass[] = [
  { partialName: 'image', loading: 'client', binary: true, extensions: AVATAR_EXTENSIONS },
  { partialName: 'sketch', loading: 'client', binary: true, extensions: ['sketch'] },
  { partialName: 'video', loading: 'client', binary: true, extensions: ['mp4', 'm4v', 'mov', 'webm', 'ogv'] },
  { partialName: 'audio', loading: 'client', binary: true, extensions: ['mp3', 'oga', 'ogg', 'spx', 'wav'] },
  { partialName: 'pdf', loading: 'client', binary: true, extensions: ['pdf'] },
  { partialName: 'stl', loading: 'client', binary: true, extensions: ['stl'] },
  { partialName: 'csv', loading: 'client', binary: false, extensions: ['csv'] },
  { partialName: 'markup', loading: 'server', binary: false, extensions: MARKUP_EXTENSIONS, fileTypes: ['readme'] },
  { partialName: 'notebook', loading: 'client', binary: false, extensions: ['ipynb'] },
  { partialName: 'svg', loading: 'client', binary: false, extensions: ['svg'] },
  { partialName: 'openapi', loading: 'client', binary: false, fileTypes: ['openapi'] },
  { partialName: 'geo_json', loading: 'client', binary: false, extensions: ['geojson'] },
  { partialName: 'stl', loading: 'client', binary: false, extensions: ['stl'] },
];

const EMPTY: ViewerClass = { partialName: 'empty', loading: 'server', binary: false };
const DOWNLOAD: ViewerClass = { partialName: 'download', loading: 'static', binary: true };
const TEXT: ViewerClass = { partialName: 'text', loading: 'server', binary: false, collapseLimit: MB, sizeLimit: 10 * MB };

/** What a file is, as the viewers need it: its path, whether its bytes in git are binary, its LFS pointer. */
export interface ViewedFile {
  path: string;
  /** Size of the blob in git. */
  size: number;
  binaryInRepo: boolean;
  /** The LFS object the blob points at, when it is a pointer and the project keeps LFS objects (Blob#stored_externally?). */
  storedExternally: { oid: string; size: number } | null;
  /** A pointer in a project without LFS (Blob#external_storage_error?). */
  externalStorageError?: boolean;
}

/** GitLab's BlobViewer type's fields. */
export interface BlobViewerRow {
  type: 'simple' | 'rich';
  loadAsync: boolean;
  collapsed: boolean;
  tooLarge: boolean;
  renderError: string | null;
  fileType: string;
  loadingPartialName: string;
}

/** Blob#raw_size: the LFS object's size for a pointer stored externally, else the blob's. */
export function rawSize(file: ViewedFile): number {
  return file.storedExternally ? file.storedExternally.size : file.size;
}

function canRender(viewer: ViewerClass, file: ViewedFile, verifyBinary: boolean): boolean {
  if (verifyBinary && viewer.binary !== file.binaryInRepo) return false;
  if (viewer.extensions?.includes(extension(file.path))) return true;
  const type = fileType(file.path);
  return !!(type && viewer.fileTypes?.includes(type));
}

function richClass(file: ViewedFile): ViewerClass | null {
  if (rawSize(file) === 0 || file.externalStorageError) return null;
  return RICH_VIEWERS.find((v) => canRender(v, file, !file.storedExternally)) ?? null;
}

/** Blob#binary?: for an LFS object, what its rich viewer or extension suggests; otherwise its bytes in git. */
export function isBinaryFile(file: ViewedFile): boolean {
  if (!file.storedExternally) return file.binaryInRepo;
  const rich = richClass(file);
  if (rich) return rich.binary;
  return !knownExtension(file.path);
}

function viewer(cls: ViewerClass, type: 'simple' | 'rich', file: ViewedFile): BlobViewerRow {
  const limits = LOADING[cls.loading];
  const size = rawSize(file);
  const collapseLimit = cls.collapseLimit ?? limits.collapseLimit;
  const sizeLimit = cls.sizeLimit ?? limits.sizeLimit;
  const collapsed = collapseLimit !== null && size > collapseLimit;
  const tooLarge = sizeLimit !== null && size > sizeLimit;
  let renderError: string | null = null;
  if (cls.loading !== 'static') {
    if (cls.loading === 'server' && file.storedExternally) renderError = 'server_side_but_stored_externally';
    else if (tooLarge) renderError = 'too_large';
    else if (collapsed) renderError = 'collapsed';
  }
  return { type, loadAsync: limits.loadAsync, collapsed, tooLarge, renderError, fileType: cls.partialName, loadingPartialName: 'loading' };
}

/** Blob#simple_viewer: empty, download (binary) or text. */
export function simpleViewer(file: ViewedFile): BlobViewerRow {
  const cls = rawSize(file) === 0 ? EMPTY : isBinaryFile(file) ? DOWNLOAD : TEXT;
  return viewer(cls, 'simple', file);
}

/** Blob#rich_viewer: the first rich viewer that renders the file, or null. */
export function richViewer(file: ViewedFile): BlobViewerRow | null {
  const cls = richClass(file);
  return cls && viewer(cls, 'rich', file);
}

/**
 * Gitlab::Highlight's HTML (Rouge::Formatters::HTMLGitlab), without token colouring: each line in
 * `<span id="LC<n>" class="line" lang="<tag>">…</span>`, joined by newlines. Null for binary content.
 */
export function plainHighlight(path: string, text: string): string {
  const lang = language(path);
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines.map((line, i) => `<span id="LC${i + 1}" class="line" lang="${lang}">${escapeHtml(line)}</span>`).join('\n');
}
