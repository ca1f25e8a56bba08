/**
 * Where the server's git runs start: a small child process of its own (src/git/spawner-process.ts), not this one.
 * Starting a process from this one copies its page tables while its event loop waits, which grows with the memory
 * this process holds (the database's WebAssembly, the schema): 22 ms a start at 300 MB, against about 1 ms from the
 * spawner. A commit through the API starts a dozen gits, so four clients committing held every other request back
 * (issue 23's bench: `GET /version` p99 from 6 ms to 93 ms). The spawner is started on the first run, again after it
 * dies, and ends with this process.
 *
 * A run is a `GitProcess`: git's standard streams and its end, as `child_process.spawn` gives them, over one Unix
 * socket connection to the spawner (frames: src/git/spawner-frames.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { RUNNING_TYPESCRIPT, codeFile } from '../paths.js';
import { FRAME, frame, FrameReader, type RunExit, type RunRequest } from './spawner-frames.js';

/**
 * One git run's streams and end, as a ChildProcess offers them: `close` (code, signal) once its output has ended and
 * it has exited; `error` when it could not be started.
 */
export class GitProcess extends EventEmitter {
  readonly stdin: Writable;
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  exitCode: number | null = null;
  private ended = false;

  private socket: Socket | null = null;
  private readonly connected: Promise<void>;

  /**
   * `connecting` gives the connection once the run has been sent on it (its input may follow), or null when it could
   * not be; `lost` is told when the connection ends before git's end came back (the spawner died).
   */
  constructor(connecting: Promise<Socket | null>, lost: () => void) {
    super();
    this.stdin = new Writable({
      write: (chunk: Buffer, _encoding, callback) => this.send(FRAME.stdin, chunk, callback),
      final: (callback) => this.send(FRAME.stdinEnd, Buffer.alloc(0), callback),
    });
    this.connected = connecting.then((socket) => {
      if (!socket) return this.finish({ code: null, signal: null, error: 'the git spawner could not be reached' });
      this.socket = socket;
      const reader = new FrameReader((type, payload) => this.received(type, payload));
      socket.on('data', (chunk: Buffer) => {
        if (!reader.push(chunk)) socket.destroy();
      });
      socket.on('error', () => {});
      socket.on('close', () => {
        if (this.ended) return;
        lost();
        this.finish({ code: null, signal: null, error: 'the git spawner went away' });
      });
    });
  }

  /** Sends a signal to git (SIGTERM unless named). */
  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    if (this.ended) return false;
    void this.connected.then(() => {
      if (!this.ended && this.socket && !this.socket.destroyed) this.socket.write(frame(FRAME.kill, signal));
    });
    return true;
  }

  private send(type: number, payload: Buffer, callback: (error?: Error | null) => void): void {
    void this.connected.then(() => {
      // Once git has gone its input goes nowhere, as writing to an exited child's pipe; its end says what happened.
      if (this.ended || !this.socket || this.socket.destroyed) return callback();
      this.socket.write(frame(type, payload), () => callback());
    });
  }

  private received(type: number, payload: Buffer): void {
    if (type === FRAME.stdout) {
      const socket = this.socket!;
      if (!this.stdout.write(payload)) {
        socket.pause();
        this.stdout.once('drain', () => socket.resume());
      }
    } else if (type === FRAME.stderr) this.stderr.write(payload);
    else if (type === FRAME.exit) this.finish(JSON.parse(payload.toString('utf8')) as RunExit);
  }

  private finish(exit: RunExit): void {
    this.ended = true;
    this.socket?.end();
    this.stderr.end();
    if (exit.error && exit.code === null && exit.signal === null) {
      this.stdout.end();
      const error = Object.assign(new Error(`git did not run: ${exit.error}`), { code: exit.error });
      this.emit('error', error);
      return;
    }
    this.exitCode = exit.code;
    // `close` after the output has been read to its end, as Node's ChildProcess orders them.
    this.stdout.once('end', () => this.emit('close', exit.code, exit.signal));
    this.stdout.end();
    if (this.stdout.readableFlowing === null && this.stdout.listenerCount('data') === 0) this.stdout.resume();
  }
}

class Spawner {
  private child: ChildProcess | null = null;
  private ready: Promise<string> | null = null;

  /** The running spawner's process id (none before the first run, or after it died). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The socket of a running spawner, starting one when there is none. */
  private socketPath(): Promise<string> {
    if (this.ready) return this.ready;
    const folder = mkdtempSync(join(tmpdir(), 'gitlab-git-'));
    const path = join(folder, 'spawner.sock');
    const args = [...(RUNNING_TYPESCRIPT ? ['--import', 'tsx'] : []), codeFile('git/spawner-process'), path];
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'], env: { PATH: process.env.PATH } });
    this.child = child;
    const ready = new Promise<string>((resolve, reject) => {
      let said = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        said += chunk.toString('utf8');
        if (!said.includes('ready\n')) return;
        // Once ready, neither the spawner nor its pipes keep this process running; it ends when they close.
        for (const stream of [child.stdin, child.stdout]) (stream as unknown as { unref?: () => void } | null)?.unref?.();
        resolve(path);
      });
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`the git spawner exited with ${code} before it was ready`)));
    });
    child.once('exit', () => {
      rmSync(folder, { recursive: true, force: true });
      if (this.child === child) {
        this.child = null;
        this.ready = null;
      }
    });
    child.unref();
    this.ready = ready;
    ready.catch(() => {
      if (this.ready === ready) this.ready = null;
    });
    return ready;
  }

  /** Starts `git <args>` in the spawner; the returned process emits `error` when that fails. */
  run(request: RunRequest): GitProcess {
    const ready = this.socketPath();
    return new GitProcess(this.connect(request, true), () => this.drop(ready));
  }

  /** Forgets the spawner that answered `ready` (it died or stopped answering): the next run starts a new one. */
  private drop(ready: Promise<string>): void {
    if (this.ready !== ready) return;
    this.child?.kill('SIGKILL');
    this.child = null;
    this.ready = null;
  }

  /**
   * A connection with the run sent on it. A spawner that refuses connections has died (its exit may not have been
   * seen yet): it is dropped, and the run tries once more with a new one.
   */
  private async connect(request: RunRequest, retry: boolean): Promise<Socket | null> {
    const ready = this.socketPath();
    const path = await ready.catch(() => null);
    if (path === null) return null;
    const socket = await new Promise<Socket | null>((resolve) => {
      const socket = new Socket();
      socket.once('error', () => resolve(null));
      socket.connect(path, () => {
        socket.removeAllListeners('error');
        socket.write(frame(FRAME.run, JSON.stringify(request)));
        resolve(socket);
      });
    });
    if (socket || !retry) return socket;
    this.drop(ready);
    return this.connect(request, false);
  }
}

export const spawner = new Spawner();
