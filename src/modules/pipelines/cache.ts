/**
 * A job's `cache:` as its row keeps it (GitLab's Seed::Build::Cache#attributes): `key:files` resolved to the SHA-1
 * of the files' last commits at the pipeline's commit, with its prefix; `default` when none of the files exist.
 */
import { createHash } from 'node:crypto';
import type { PlannedCache } from '../../ci/config/cache-entry.js';
import type { PlannedJob } from '../../ci/config/types.js';

export interface StoredCache {
  key: string;
  paths: string[];
  untracked: boolean;
  policy: string;
  when: string;
  unprotect: boolean;
  fallback_keys: string[];
}

interface CommitsOf {
  lastCommitFor(revision: string, path: string): Promise<string | null>;
}

async function keyOf(key: PlannedCache['key'], repository: CommitsOf, sha: string): Promise<string> {
  if (typeof key === 'string') return key;
  const commits = (await Promise.all(key.files.map((file) => repository.lastCommitFor(sha, file)))).filter((c): c is string => c !== null);
  const files = commits.length ? createHash('sha1').update(commits.join('')).digest('hex') : 'default';
  return [key.prefix, files].filter(Boolean).join('-');
}

/** The jobs' caches with their keys resolved, in the shape the job's options store. */
export async function storedCaches(jobs: readonly PlannedJob[], repository: CommitsOf, sha: string): Promise<Map<PlannedJob, StoredCache[]>> {
  const out = new Map<PlannedJob, StoredCache[]>();
  for (const job of jobs) {
    if (!job.cache?.length) continue;
    out.set(
      job,
      await Promise.all(
        job.cache.map(async (c) => ({
          key: await keyOf(c.key, repository, sha),
          paths: c.paths,
          untracked: c.untracked,
          policy: c.policy,
          when: c.when,
          unprotect: c.unprotect,
          fallback_keys: c.fallbackKeys,
        })),
      ),
    );
  }
  return out;
}
