/** The real `git` CLI against a test server: isolated from the machine's configuration, never prompting. */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

export interface GitRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** A private HOME and work area for one test file, removed after it. */
export function gitSandbox() {
  const root = mkdtempSync(join(tmpdir(), 'git-client-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: root,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: join(root, 'gitconfig'),
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'Test Author',
    GIT_AUTHOR_EMAIL: 'author@example.com',
    GIT_COMMITTER_NAME: 'Test Author',
    GIT_COMMITTER_EMAIL: 'author@example.com',
    LANG: 'C',
  };
  let n = 0;
  return {
    root,
    /** A new empty folder under the sandbox. */
    folder(name = 'work'): string {
      return mkdtempSync(join(root, `${name}-${++n}-`));
    },
    /** Runs git (asynchronously: the server answers from this very process); never throws for a failing git. */
    run(cwd: string, args: string[], extraEnv: Record<string, string> = {}): Promise<GitRun> {
      return new Promise((resolve) => {
        execFile('git', args, { cwd, env: { ...env, ...extraEnv }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
          const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : 1) : 0;
          resolve({ code, stdout, stderr });
        });
      });
    },
    /** Runs git and fails the test with git's words when it fails. */
    async ok(cwd: string, args: string[], extraEnv: Record<string, string> = {}): Promise<string> {
      const result = await this.run(cwd, args, extraEnv);
      if (result.code !== 0) throw new Error(`git ${args.join(' ')} exited with ${result.code}:\n${result.stderr}`);
      return result.stdout;
    },
  };
}

/** The clone URL of a project on the test server, with a token as Basic password when given. */
export function cloneUrl(serverUrl: string, fullPath: string, token?: string, login = 'oauth2'): string {
  const url = new URL(`${serverUrl}/${fullPath}.git`);
  if (token) {
    url.username = login;
    url.password = token;
  }
  return url.toString();
}
