/**
 * What `include: project:` reads (GitLab's External::File::Project), for pipelines and the lint API alike: a project
 * found by its full path that the caller (the pipeline's user) may download the code of, at a ref.
 */
import type { CiContext, IncludedProject } from '../../ci/config/index.js';
import type { Repository } from '../../git/repository.js';
import { MAX_FILE_BYTES } from '../../ci/config/yaml.js';
import type { ServiceBase } from '../module.js';
import type { ProjectsService } from '../projects/service.js';
import type { RepositoriesService } from '../repositories/service.js';

/** The largest file list of a commit the engine reads for wildcard includes and `rules: exists` globs (`ls-tree` bytes). */
const MAX_FILE_LIST_BYTES = 32 * 1024 * 1024;

/** Every file path of a commit, as wildcard includes and `exists:` globs see them: one bounded `ls-tree` (none beyond the bound). */
export async function commitFiles(repository: Repository, sha: string): Promise<readonly string[]> {
  return (await repository.filePaths(sha, MAX_FILE_LIST_BYTES)) ?? [];
}

export function projectIncludes(base: ServiceBase, projects: ProjectsService, repositories: RepositoriesService): NonNullable<CiContext['readProject']> {
  const server = base.app.config.externalUrl.replace(/\/+$/, '');
  // One configuration may include several files of one project at one ref: it is looked up once.
  const known = new Map<string, Promise<IncludedProject | null>>();
  const open = async (path: string, ref: string | null): Promise<IncludedProject | null> => {
    const project = await projects.find({ path });
    if (!project || !(await base.access.can('download_code', project))) return null;
    const repository = await repositories.open(project);
    const sha = await repository.resolve(`${ref ?? 'HEAD'}^{commit}`);
    let files: Promise<readonly string[]> | undefined;
    return {
      fullPath: project.fullPath,
      url: `${server}/${project.fullPath}`,
      sha,
      read: async (file) => {
        if (sha === null) return null;
        const bytes = await repositories.reads.fileAt(project, sha, file, MAX_FILE_BYTES);
        return bytes && bytes.toString('utf8');
      },
      files: () => (files ??= sha === null ? Promise.resolve([]) : commitFiles(repository, sha)),
    };
  };
  return (path, ref) => {
    const key = `${path.toLowerCase()}\0${ref ?? ''}`;
    let found = known.get(key);
    if (!found) known.set(key, (found = open(path, ref)));
    return found;
  };
}
