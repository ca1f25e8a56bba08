/** GraphQL resolvers of CI linting: `Query.ciConfig` and GitLab's `CiConfig` stages, groups, jobs and needs. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { parseRef } from '../../graphql/ids.js';
import { listConnection } from '../repositories/reads.js';
import type { LintInput, LintJob, LintResult } from './service.js';

/**
 * GitLab's CommitStatus#group_name: the name without a `parallel:` suffix (`rspec 1/3`, `build: [linux, amd64]`)
 * or trailing numbering (`job 1 2`).
 */
function groupName(name: string): string {
  return name.replace(/(?:[\s:]+(?:\[.*\]|\d+[\s:/\\]+\d+))+\s*$/, '').trim();
}

interface Group {
  name: string;
  jobs: LintJob[];
}

interface Stage {
  name: string;
  groups: Group[];
}

/** GitLab's ConfigResolver#make_stages: jobs grouped by group name within each stage, stages in job order. */
function stages(result: LintResult): Stage[] {
  const byStage = new Map<string, Map<string, LintJob[]>>();
  for (const job of result.jobs) {
    const groups = byStage.get(job.stage) ?? new Map<string, LintJob[]>();
    byStage.set(job.stage, groups);
    const name = groupName(job.name);
    groups.set(name, [...(groups.get(name) ?? []), job]);
  }
  return [...byStage].map(([name, groups]) => ({ name, groups: [...groups].map(([group, jobs]) => ({ name: group, jobs })) }));
}

export const ciLintResolvers = {
  CiConfigStatus: { VALID: 'valid', INVALID: 'invalid' },
  Query: {
    ciConfig: async (_: unknown, args: LintInput & { projectPath: string }, ctx: Context) =>
      ctx.services.ci_lint.lint(await ctx.services.projects.get(parseRef(args.projectPath, 'Project', 'projectPath')), args),
  },
  CiConfig: {
    status: (r: LintResult) => (r.valid ? 'valid' : 'invalid'),
    stages: (r: LintResult, args: PageArgs) => listConnection(args, stages(r)),
  },
  CiConfigInclude: {
    contextProject: (i: { context_project: string | null }) => i.context_project,
    contextSha: (i: { context_sha: string | null }) => i.context_sha,
  },
  CiConfigStage: {
    groups: (s: Stage, args: PageArgs) => listConnection(args, s.groups),
  },
  CiConfigGroup: {
    size: (g: Group) => g.jobs.length,
    jobs: (g: Group, args: PageArgs) => listConnection(args, g.jobs),
  },
  CiConfigJob: {
    groupName: (j: LintJob) => groupName(j.name),
    needs: (j: LintJob, args: PageArgs) => listConnection(args, j.needs ?? []),
    tags: (j: LintJob) => j.tagList,
  },
};
