/**
 * Archives of a project's code (GitLab's `GET /repository/archive[.format]`, `send_git_archive`) and snapshots of its
 * repository (`GET /snapshot`, `send_git_snapshot`): who may have them and what to stream. The bytes never pass
 * through memory whole: src/http/repository-archive.ts streams `git archive` (through a `bzip2` filter git runs
 * itself for bzip2 formats) and the snapshot's tar straight to the client.
 */
import { notFound, unauthenticated } from '../../errors.js';
import type { ServiceBase } from '../module.js';
import type { ProjectRow } from '../projects/service.js';
import { pathProblem } from './paths.js';
import type { RepositoriesService } from './service.js';

/** The formats GitLab's route takes as a path suffix (Gitlab::PathRegex.archive_formats_regex). */
export const ARCHIVE_SUFFIXES = ['zip', 'tar', 'tar.gz', 'tgz', 'gz', 'tar.bz2', 'tbz', 'tbz2', 'tb2', 'bz2'] as const;

/** What git writes for a requested format, and the file's extension (GitLab's archive_format / archive_file_path). */
function archiveFormat(format: string | null | undefined): { git: string; extension: string } {
  switch ((format || 'tar.gz').toLowerCase()) {
    case 'tar.bz2':
    case 'tbz':
    case 'tbz2':
    case 'tb2':
    case 'bz2':
      return { git: 'tar.bz2', extension: 'tar.bz2' };
    case 'tar':
      return { git: 'tar', extension: 'tar' };
    case 'zip':
      return { git: 'zip', extension: 'zip' };
    default:
      return { git: 'tar.gz', extension: 'tar.gz' };
  }
}

export interface ArchiveRequest {
  sha?: string | null;
  format?: string | null;
  path?: string | null;
  excludePaths?: readonly string[];
}

/** A `git archive` run to stream, with the answer's file name and content type (GitLab Workhorse's headers). */
export interface ArchivePlan {
  gitDir: string;
  args: string[];
  fileName: string;
  contentType: string;
}

export class RepositoryArchives {
  constructor(
    private readonly base: ServiceBase,
    private readonly repositories: RepositoriesService,
  ) {}

  /**
   * An archive of a revision (default: the default branch), of one directory with `path`: GitLab names it and its
   * top directory `<project path>-<ref>-<commit sha>[-<path>]`, slashes turned into dashes. Anything that names
   * no commit or no path is GitLab's `404 File Not Found`.
   */
  async archive(project: ProjectRow, request: ArchiveRequest): Promise<ArchivePlan> {
    await this.repositories.authorizeRead(project);
    const repository = await this.repositories.open(project);
    const ref = request.sha || project.defaultBranch;
    const commitId = ref.startsWith('-') ? null : await repository.resolve(`${ref}^{commit}`);
    if (!commitId) throw notFound('File');
    const path = request.path ? request.path.replace(/^\/+/, '') : '';
    if (path) {
      const clean = path.replace(/\/+$/, '');
      if (pathProblem(clean) || (await repository.entries(commitId, [clean])).size === 0) throw notFound('File');
    }
    const format = archiveFormat(request.format);
    const segments = [project.path, ref.replace(/\//g, '-'), commitId];
    // GitLab's `path.tr('/', '-').gsub(%r{^/|/$}, '')`: the slashes are dashes by then, so a trailing one stays a dash.
    if (request.path) segments.push(request.path.replace(/\//g, '-'));
    const prefix = segments.join('-');
    const pathspecs = [...(path ? [`:(literal)${path.replace(/\/+$/, '')}`] : []), ...(request.excludePaths ?? []).filter(Boolean).map((p) => `:(exclude,literal)${p}`)];
    if (pathspecs.length && !path) pathspecs.unshift('.');
    return {
      gitDir: repository.path,
      // git runs the bzip2 filter itself (`tar.<format>.command`), as Workhorse pipes `git archive` into `bzip2 -c`.
      args: ['-c', 'tar.tar.bz2.command=bzip2 -c', 'archive', `--format=${format.git}`, `--prefix=${prefix}/`, commitId, ...(pathspecs.length ? ['--', ...pathspecs] : [])],
      fileName: `${prefix}.${format.extension}`,
      contentType: format.git === 'zip' ? 'application/zip' : 'application/octet-stream',
    };
  }

  /**
   * The repository directory to put in a snapshot (GitLab's `GET /projects/:id/snapshot`, administrators only);
   * `wiki` asks for the wiki's repository, which no project here has (404).
   */
  async snapshot(project: () => Promise<ProjectRow>, wiki: boolean): Promise<string> {
    // GitLab's `authenticated_as_admin!` comes first: anyone else is refused before the project is looked up.
    if (!this.base.viewer) throw unauthenticated();
    await this.base.access.authorize('admin_all_resources', null);
    const row = await project();
    if (wiki) throw notFound('Repository');
    return (await this.repositories.open(row)).path;
  }
}
