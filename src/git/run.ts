/**
 * Runs the `git` program, as GitLab does through Gitaly: every repository read and write goes through here (or
 * through `spawnGit` for the streams of git over HTTP). Each run sees only the repository it is given: no system
 * or user configuration, no terminal prompts, no inherited GIT_* variables. At most a few runs at a time per
 * process; the others wait their turn, so a burst of requests cannot fork without bound. Runs start in the git
 * spawner (src/git/spawner.ts), never in this process, whose memory makes every start stall its event loop.
 */
import { availableParallelism } from 'node:os';
import { spawner, type GitProcess } from './spawner.js';

/** A git run that ended other than expected: its exit code and what it said. */
export class GitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly code: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args[0] ?? ''} exited with ${code}: ${stderr.trim().split('\n').slice(-1)[0] ?? ''}`);
  }
}

/** Output beyond this is an error (a run that should return little returned a lot): 64 MB unless said. */
const DEFAULT_MAX_OUTPUT = 64 * 1024 * 1024;

export interface GitOptions {
  /** Written to git's standard input, then closed. */
  input?: Buffer | string;
  /** Extra environment (GIT_AUTHOR_NAME, GIT_INDEX_FILE …) on top of the isolated one. */
  env?: Record<string, string>;
  /** Exit codes that are answers rather than failures (e.g. 1 from `merge-base --is-ancestor`). */
  okCodes?: readonly number[];
  maxOutput?: number;
}

export interface GitResult {
  stdout: Buffer;
  code: number;
}

/** The environment every git run gets: nothing from the server's own environment but PATH. */
function isolatedEnv(gitDir: string, extra: Record<string, string> | undefined): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: gitDir,
    LANG: 'C',
    LC_ALL: 'C',
    TZ: 'UTC',
    GIT_DIR: gitDir,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    ...extra,
  };
}

/** Runs at a time in this process. */
const LIMIT = Math.max(4, availableParallelism() * 2);
let running = 0;
const waiting: (() => void)[] = [];

async function slot(): Promise<() => void> {
  if (running >= LIMIT) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  return () => {
    running--;
    waiting.shift()?.();
  };
}

/** Runs `git <args>` on the repository at `gitDir` and returns its output; a failure throws GitError. */
export async function git(gitDir: string, args: readonly string[], options: GitOptions = {}): Promise<GitResult> {
  const release = await slot();
  try {
    return await new Promise<GitResult>((resolve, reject) => {
      const child = spawnGit(gitDir, args, options.env);
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let size = 0;
      const max = options.maxOutput ?? DEFAULT_MAX_OUTPUT;
      let overflow = false;
      child.stdout.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > max) {
          overflow = true;
          child.kill('SIGKILL');
        } else out.push(chunk);
      });
      child.stderr.on('data', (chunk: Buffer) => err.length < 64 && err.push(chunk));
      child.on('error', reject);
      child.on('close', (code) => {
        const stderr = Buffer.concat(err).toString('utf8');
        if (overflow) return reject(new GitError(args, code, `output exceeds ${max} bytes`));
        if (code === 0 || (code !== null && options.okCodes?.includes(code))) resolve({ stdout: Buffer.concat(out), code });
        else reject(new GitError(args, code, stderr));
      });
      // git may exit before reading its input (e.g. an unknown revision): that is its answer, not ours to raise.
      child.stdin.on('error', () => {});
      child.stdin.end(options.input);
    });
  } finally {
    release();
  }
}

/** `git` with its output as text, trailing newline removed. */
export async function gitText(gitDir: string, args: readonly string[], options?: GitOptions): Promise<string> {
  return (await git(gitDir, args, options)).stdout.toString('utf8').replace(/\n$/, '');
}

/**
 * Starts `git <args>` with its streams open to the caller (git over HTTP streams packs through it, never
 * holding one in memory). The caller owns the process: it must consume stdout and wait for `close`.
 */
export function spawnGit(gitDir: string, args: readonly string[], env?: Record<string, string>): GitProcess {
  return spawner.run({ args, env: isolatedEnv(gitDir, env), cwd: gitDir });
}
