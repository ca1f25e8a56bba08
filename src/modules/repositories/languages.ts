/**
 * A repository's languages as GitLab shows them (Project.languages, from Gitaly's linguist): the bytes of each
 * language's files at the default branch as shares of all, largest first, the first five (Gitlab::LanguageDetection).
 * GitLab uses linguist; here a file's language comes from a table of well-known extensions and file names with
 * linguist's names and colours, and linguist's vendored and documentation paths are left out as it leaves them out.
 * Only programming and markup languages count, as linguist counts them (so no Markdown, JSON or YAML).
 */
import { basename } from 'node:path';
import { extension } from './blob-viewers.js';

interface Language {
  name: string;
  color: string;
}

const L = (name: string, color: string): Language => ({ name, color });
const RUBY = L('Ruby', '#701516');
const JS = L('JavaScript', '#f1e05a');
const CPP = L('C++', '#f34b7d');
const SHELL = L('Shell', '#89e051');

const BY_EXTENSION: Record<string, Language> = {
  rb: RUBY, rake: RUBY, gemspec: RUBY, ru: RUBY,
  js: JS, mjs: JS, cjs: JS, jsx: JS,
  ts: L('TypeScript', '#3178c6'), mts: L('TypeScript', '#3178c6'), cts: L('TypeScript', '#3178c6'), tsx: L('TSX', '#3178c6'),
  py: L('Python', '#3572A5'), go: L('Go', '#00ADD8'), rs: L('Rust', '#dea584'), java: L('Java', '#b07219'),
  kt: L('Kotlin', '#A97BFF'), kts: L('Kotlin', '#A97BFF'), scala: L('Scala', '#c22d40'), groovy: L('Groovy', '#4298b8'),
  swift: L('Swift', '#F05138'), m: L('Objective-C', '#438eff'), c: L('C', '#555555'), h: L('C', '#555555'),
  cc: CPP, cpp: CPP, cxx: CPP, hpp: CPP, hh: CPP, cs: L('C#', '#178600'), php: L('PHP', '#4F5D95'),
  pl: L('Perl', '#0298c3'), pm: L('Perl', '#0298c3'), lua: L('Lua', '#000080'), r: L('R', '#198CE7'),
  hs: L('Haskell', '#5e5086'), ex: L('Elixir', '#6e4a7e'), exs: L('Elixir', '#6e4a7e'), erl: L('Erlang', '#B83998'),
  clj: L('Clojure', '#db5855'), dart: L('Dart', '#00B4AB'), sh: SHELL, bash: SHELL, zsh: SHELL,
  ps1: L('PowerShell', '#012456'), html: L('HTML', '#e34c26'), htm: L('HTML', '#e34c26'), css: L('CSS', '#563d7c'),
  scss: L('SCSS', '#c6538c'), sass: L('Sass', '#a53b70'), less: L('Less', '#1d365d'), vue: L('Vue', '#41b883'),
  tf: L('HCL', '#844FBA'), hcl: L('HCL', '#844FBA'), nix: L('Nix', '#7e7eff'), zig: L('Zig', '#ec915c'),
  elm: L('Elm', '#60B5CC'), ml: L('OCaml', '#3be133'), jl: L('Julia', '#a270ba'), vim: L('Vim Script', '#199f4b'),
  sql: L('PLpgSQL', '#336790'), proto: L('Protocol Buffer', '#e1ffe1'), tex: L('TeX', '#3D6117'),
};

const BY_NAME: Record<string, Language> = {
  dockerfile: L('Dockerfile', '#384d54'),
  makefile: L('Makefile', '#427819'),
  gnumakefile: L('Makefile', '#427819'),
  gemfile: RUBY,
  rakefile: RUBY,
  'cmakelists.txt': L('CMake', '#DA3434'),
};

/** Linguist's vendored and documentation paths (a subset of its vendor.yml and documentation.yml). */
const EXCLUDED = [/(^|\/)(node_modules|vendor|bower_components|third[-_]?party|dist|\.yarn)\//i, /(^|\/)(docs?|Documentation)\//i, /\.min\.(js|css)$/i, /(^|\/)(README|CHANGELOG|LICENSE|CONTRIBUTING)[^/]*$/i];

export function languageOf(path: string): Language | null {
  if (EXCLUDED.some((pattern) => pattern.test(path))) return null;
  return BY_NAME[basename(path).toLowerCase()] ?? BY_EXTENSION[extension(path)] ?? null;
}

/** GitLab's LanguageDetection::MAX_LANGUAGES. */
const MAX_LANGUAGES = 5;

/** The languages of a tree's files, by share of their bytes (a percentage, two decimals), largest first. */
export function repositoryLanguages(files: readonly { path: string; size: number }[]): { name: string; share: number; color: string }[] {
  const bytes = new Map<Language['name'], { language: Language; size: number }>();
  let total = 0;
  for (const file of files) {
    const language = languageOf(file.path);
    if (!language || file.size === 0) continue;
    const entry = bytes.get(language.name) ?? { language, size: 0 };
    entry.size += file.size;
    bytes.set(language.name, entry);
    total += file.size;
  }
  return [...bytes.values()]
    .map(({ language, size }) => ({ name: language.name, color: language.color, share: Math.round((size / total) * 10000) / 100 }))
    .sort((a, b) => b.share - a.share || a.name.localeCompare(b.name))
    .slice(0, MAX_LANGUAGES);
}
