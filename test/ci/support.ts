/** A CI context for the engine's unit tests: a push pipeline on `main` of `group/project`, files from a map. */
import { expect, it } from 'vitest';
import { planPipeline, type CiContext, type PipelinePlan, type PlanOptions } from '../../src/ci/config/index.js';

export const SHA = '0123456789abcdef0123456789abcdef01234567';

export const BRANCH_VARIABLES: Record<string, string> = {
  CI_PIPELINE_SOURCE: 'push',
  CI_COMMIT_REF_NAME: 'main',
  CI_COMMIT_BRANCH: 'main',
  CI_DEFAULT_BRANCH: 'main',
  CI_COMMIT_SHA: SHA,
  CI_PROJECT_PATH: 'group/project',
  CI_PROJECT_URL: 'http://gitlab.example.com/group/project',
};

export interface ContextOptions {
  /** Variables over the branch pipeline's; null removes one. */
  variables?: Record<string, string | null>;
  files?: Record<string, string>;
  changes?: readonly string[];
  listFiles?: boolean;
  /** Other projects `include: project:` may read: full path → ref (`HEAD` for none) → that commit's files. */
  projects?: Record<string, Record<string, Record<string, string>>>;
}

/** The commit a test project's ref names: the ref's name padded into a sha. */
export const refSha = (ref: string) => Buffer.from(ref).toString('hex').padEnd(40, '0').slice(0, 40);

export function context(options: ContextOptions = {}): CiContext & { reads: string[] } {
  const files = options.files ?? {};
  const reads: string[] = [];
  return {
    reads,
    variables: Object.fromEntries(Object.entries({ ...BRANCH_VARIABLES, ...options.variables }).filter((e): e is [string, string] => e[1] !== null)),
    changes: options.changes,
    readLocal: async (path) => {
      reads.push(path);
      return Object.hasOwn(files, path) ? files[path] : null;
    },
    ...(options.listFiles === false ? {} : { listFiles: async () => Object.keys(files) }),
    ...(options.projects ? { readProject: readProjectOf(options.projects, reads) } : {}),
  };
}

function readProjectOf(projects: NonNullable<ContextOptions['projects']>, reads: string[]): NonNullable<CiContext['readProject']> {
  return async (path, ref) => {
    const refs = projects[path];
    if (!refs) return null;
    const files = refs[ref ?? 'HEAD'];
    return {
      fullPath: path,
      url: `http://gitlab.example.com/${path}`,
      sha: files ? refSha(ref ?? 'HEAD') : null,
      read: async (file) => {
        reads.push(`${path}:${file}`);
        return files && Object.hasOwn(files, file) ? files[file] : null;
      },
      files: async () => Object.keys(files ?? {}),
    };
  };
}

export function plan(content: string, options: ContextOptions & PlanOptions = {}): Promise<PipelinePlan> {
  return planPipeline(content, context(options), { static: options.static });
}

/** The plan's jobs by name. */
export async function jobs(content: string, options: ContextOptions & PlanOptions = {}) {
  const result = await plan(content, options);
  if (result.errors.length) throw new Error(`unexpected errors: ${result.errors.join('; ')}`);
  return Object.fromEntries(result.jobs.map((job) => [job.name, job]));
}

/** The names of the jobs the plan keeps. */
export async function names(content: string, options: ContextOptions & PlanOptions = {}): Promise<string[]> {
  return Object.keys(await jobs(content, options));
}

/** The plan's errors. */
export async function errors(content: string, options: ContextOptions & PlanOptions = {}): Promise<string[]> {
  return (await plan(content, options)).errors;
}

/** One test per row: the configuration, and the one error GitLab answers it with. */
export function itReports(title: string, table: [content: string, error: string][]): void {
  it.each(table)(`${title}: %j`, async (content, error) => {
    expect(await errors(content)).toEqual([error]);
  });
}
