/**
 * gitlab-runner's local cache, without a shared cache server: `<cache dir>/<project path>/<key>/cache.zip`, extracted
 * into the project folder before the script (policy pull or pull-push; the fallback keys tried in turn) and made
 * from the cache's paths after it (policy push or pull-push, when its `when` matches the job's state), with the
 * lines gitlab-runner writes to the job's log.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { JobPayload } from './client.js';
import { artifactFiles, exists, extractZip, zipStream } from './artifacts.js';

type Cache = NonNullable<JobPayload['cache']>[number];

const YELLOW = '\x1b[0;33m';
const RESET = '\x1b[0;m';

/** gitlab-runner refuses keys that would leave the cache folder. */
const sanitize = (key: string) => (key.includes('/') || key === '.' || key === '..' || key === '' ? null : key);

export class LocalCache {
  constructor(
    private readonly dir: string,
    private readonly projectPath: string,
    private readonly line: (text: string) => void,
  ) {}

  private file(key: string): string {
    return join(this.dir, this.projectPath, key, 'cache.zip');
  }

  /** Restores each cache whose policy pulls, trying its key then its fallback keys. */
  async restore(caches: readonly Cache[], projectDir: string): Promise<void> {
    const pulling = caches.filter((c) => c.policy !== 'push');
    if (!pulling.length) return;
    for (const cache of pulling) {
      for (const key of [cache.key, ...(cache.fallback_keys ?? [])]) {
        const safe = sanitize(key);
        if (!safe) {
          this.line(`${YELLOW}WARNING: Skipping cache extraction due to invalid cache key "${key}"${RESET}`);
          continue;
        }
        this.line(`Checking cache for ${safe}...`);
        const file = this.file(safe);
        if (!(await exists(file))) {
          this.line(`${YELLOW}WARNING: file does not exist${RESET}`);
          this.line(`${YELLOW}Failed to extract cache${RESET}`);
          continue;
        }
        this.line('No URL provided, cache will not be downloaded from shared cache server. Instead a local version of cache will be extracted. ');
        await extractZip(file, projectDir, (text) => this.line(`${YELLOW}WARNING: ${text}${RESET}`));
        this.line('Successfully extracted cache');
        break;
      }
    }
  }

  /** Archives each cache whose policy pushes and whose `when` matches the job's state. */
  async save(caches: readonly Cache[], projectDir: string, succeeded: boolean): Promise<void> {
    for (const cache of caches) {
      const when = cache.when || 'on_success';
      if (!(when === 'always' || (when === 'on_success') === succeeded)) continue;
      this.line(`Saving cache for ${succeeded ? 'successful' : 'failed'} job`);
      const key = sanitize(cache.key);
      if (!key) {
        this.line(`${YELLOW}WARNING: Skipping cache archiving due to invalid cache key "${cache.key}"${RESET}`);
        continue;
      }
      if (cache.policy === 'pull') {
        this.line(`Not uploading cache ${key} due to policy`);
        continue;
      }
      this.line(`Creating cache ${key}...`);
      const files = await artifactFiles(projectDir, { paths: cache.paths, untracked: cache.untracked }, (text) => this.line(`${YELLOW}WARNING: ${text}${RESET}`));
      if (!files.length) {
        this.line(`${YELLOW}WARNING: ${cache.paths.join(', ')}: no matching files${RESET}`);
        this.line(`${YELLOW}Archive is up to date!${RESET}`);
        continue;
      }
      const file = this.file(key);
      await mkdir(dirname(file), { recursive: true });
      // Written aside then renamed: a job restoring the same key at the same time never reads half a file.
      const partial = `${file}.${process.pid}.${Date.now()}.tmp`;
      await pipeline(zipStream(projectDir, files), createWriteStream(partial));
      await rename(partial, file);
      this.line('No URL provided, cache will not be uploaded to shared cache server. Cache will be stored only locally. ');
      this.line('Created cache');
    }
  }
}
