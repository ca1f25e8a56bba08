/**
 * Server-side hooks of git pushes, as GitLab runs them: `git receive-pack` runs pre-receive and post-receive
 * hooks (from a folder of this process's, named with `-c core.hooksPath`), which hand the pushed ref updates
 * back to this server (GitLab's /internal/allowed and /internal/post_receive) over a Unix socket in a folder
 * only this user may enter, each push proving itself with a secret of its own passed in the hook's environment.
 * pre-receive may refuse the push (git then updates no ref and the client sees `remote: GitLab: <message>`);
 * post-receive reports the refs git actually updated, with the push options (`git push -o`), which git hands the
 * hooks in GIT_PUSH_OPTION_<n> as Gitaly does.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile, chmod } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { RefUpdate } from './repository.js';

/** What one push's hooks call. */
export interface PushHandlers {
  /**
   * The updates the client asks for, before any ref moves; `env` lets git see the pushed objects, still in
   * quarantine. Returns the reason to refuse them all, or null to let git apply them.
   */
  preReceive(updates: RefUpdate[], env: Record<string, string>): Promise<string | null>;
  /** The updates git applied, and the push options the client sent (`git push -o`). */
  postReceive(updates: RefUpdate[], options: string[]): void;
}

/** One push's registration: git's extra arguments and environment, and its release once git has exited. */
export interface PushRegistration {
  args: string[];
  env: Record<string, string>;
  release(): void;
}

/** Largest message a hook may send: a push updating thousands of refs fits. */
const MAX_MESSAGE = 8 * 1024 * 1024;
const OBJECT_NAME = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** The hook program: reads git's `<old> <new> <ref>` lines, asks the server, prints its message, exits 0 to allow. */
const HOOK_SCRIPT = `
import { connect } from 'node:net';
const hook = process.argv[2];
let input = '';
process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin) input += chunk;
const updates = input.split('\\n').filter(Boolean).map((line) => line.split(' '));
const socket = connect(process.env.GITLAB_HOOK_SOCKET);
let reply = '';
socket.setEncoding('utf8');
socket.on('data', (data) => { reply += data; });
socket.on('error', () => {
  process.stderr.write('GitLab: Failed to authorize your Git request: internal API unreachable\\n');
  process.exit(1);
});
socket.on('end', () => {
  let answer;
  try { answer = JSON.parse(reply); } catch { answer = { ok: false, message: 'Internal API error' }; }
  if (answer.message) process.stderr.write('GitLab: ' + answer.message + '\\n');
  process.exit(answer.ok ? 0 : 1);
});
const count = Number(process.env.GIT_PUSH_OPTION_COUNT ?? 0);
const options = Array.from({ length: Number.isInteger(count) && count > 0 ? count : 0 }, (_, i) => process.env['GIT_PUSH_OPTION_' + i] ?? '');
socket.end(JSON.stringify({ secret: process.env.GITLAB_HOOK_SECRET, hook, updates, options, quarantine: process.env.GIT_QUARANTINE_PATH ?? null }) + '\\n');
`;

interface HookMessage {
  secret?: unknown;
  hook?: unknown;
  updates?: unknown;
  options?: unknown;
  quarantine?: unknown;
}

interface Push {
  gitDir: string;
  handlers: PushHandlers;
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The updates in a hook's message, or null when anything about them is not what git writes. */
function parseUpdates(raw: unknown): RefUpdate[] | null {
  if (!Array.isArray(raw)) return null;
  const updates: RefUpdate[] = [];
  for (const item of raw) {
    if (!Array.isArray(item) || item.length !== 3 || !item.every((part) => typeof part === 'string')) return null;
    const [before, after, ref] = item as string[];
    if (!OBJECT_NAME.test(before) || !OBJECT_NAME.test(after) || !ref.startsWith('refs/') || ref.includes('\0')) return null;
    updates.push({ before, after, ref });
  }
  return updates;
}

export class PushHooks {
  private readonly pushes = new Map<string, Push>();

  private constructor(
    private readonly folder: string,
    private readonly server: Server,
  ) {}

  /** Writes the hooks into a new private folder and listens on its socket. */
  static async start(): Promise<PushHooks> {
    const folder = await mkdtemp(join(tmpdir(), 'gitlab-hooks-'));
    await chmod(folder, 0o700);
    await writeFile(join(folder, 'hook.mjs'), HOOK_SCRIPT);
    for (const hook of ['pre-receive', 'post-receive']) {
      await writeFile(join(folder, hook), `#!/bin/sh\nexec ${shellQuote(process.execPath)} ${shellQuote(join(folder, 'hook.mjs'))} ${hook}\n`, { mode: 0o700 });
    }
    let hooks: PushHooks | undefined;
    // Half-open: the hook ends its side once it has written, then reads the answer.
    const server = createServer({ allowHalfOpen: true }, (socket) => hooks?.serve(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(join(folder, 'hooks.sock'), resolve);
    });
    hooks = new PushHooks(folder, server);
    return hooks;
  }

  /** Registers one push into the repository at `gitDir`; call `release` once its git has exited. */
  register(gitDir: string, handlers: PushHandlers): PushRegistration {
    const secret = randomBytes(32).toString('hex');
    this.pushes.set(secret, { gitDir, handlers });
    return {
      args: ['-c', `core.hooksPath=${this.folder}`],
      env: { GITLAB_HOOK_SOCKET: join(this.folder, 'hooks.sock'), GITLAB_HOOK_SECRET: secret },
      release: () => this.pushes.delete(secret),
    };
  }

  private serve(socket: Socket): void {
    const chunks: Buffer[] = [];
    let size = 0;
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_MESSAGE) socket.destroy();
      else chunks.push(chunk);
    });
    socket.on('end', () => {
      // A failure here must refuse the push, never escape: the handlers log their own errors.
      const answered = this.answer(Buffer.concat(chunks).toString('utf8')).catch(() => ({ ok: false, message: 'Internal API error' }));
      void answered.then((reply) => {
        if (!socket.destroyed) socket.end(JSON.stringify(reply));
      });
    });
  }

  private async answer(raw: string): Promise<{ ok: boolean; message?: string }> {
    let message: HookMessage;
    try {
      message = JSON.parse(raw) as HookMessage;
    } catch {
      return { ok: false, message: 'Internal API error' };
    }
    const push = typeof message.secret === 'string' ? this.pushes.get(message.secret) : undefined;
    const updates = parseUpdates(message.updates);
    if (!push || !updates) return { ok: false, message: 'Internal API error' };
    if (message.hook === 'post-receive') {
      const options = Array.isArray(message.options) ? message.options.filter((o): o is string => typeof o === 'string') : [];
      push.handlers.postReceive(updates, options);
      return { ok: true };
    }
    if (message.hook !== 'pre-receive') return { ok: false, message: 'Internal API error' };
    // The pushed objects wait in quarantine inside the repository's objects folder until pre-receive allows them.
    const quarantine = typeof message.quarantine === 'string' ? resolve(message.quarantine) : null;
    const objects = join(push.gitDir, 'objects');
    const env: Record<string, string> = {};
    if (quarantine !== null) {
      if (!quarantine.startsWith(`${objects}/`) || quarantine.slice(objects.length + 1).includes('/')) return { ok: false, message: 'Internal API error' };
      Object.assign(env, { GIT_OBJECT_DIRECTORY: quarantine, GIT_ALTERNATE_OBJECT_DIRECTORIES: objects, GIT_QUARANTINE_PATH: quarantine });
    }
    const refusal = await push.handlers.preReceive(updates, env);
    return refusal === null ? { ok: true } : { ok: false, message: refusal };
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await rm(this.folder, { recursive: true, force: true });
  }
}
