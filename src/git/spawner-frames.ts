/**
 * The frames the server and its git spawner (src/git/spawner-process.ts) exchange over one run's connection:
 * `type (1 byte) | length (4 bytes, big-endian) | payload`.
 */

export const FRAME = {
  /** Server → spawner, first: the run (RunRequest as JSON). */
  run: 1,
  /** Server → spawner: bytes for git's standard input. */
  stdin: 2,
  /** Server → spawner: git's standard input ends. */
  stdinEnd: 3,
  /** Server → spawner: a signal for git (its name). */
  kill: 4,
  /** Spawner → server: bytes of git's standard output. */
  stdout: 5,
  /** Spawner → server: bytes of git's standard error. */
  stderr: 6,
  /** Spawner → server, last: how git ended (RunExit as JSON). */
  exit: 7,
} as const;

export interface RunRequest {
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export interface RunExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when git could not be started (its errno code). */
  error?: string;
}

/** Largest payload of one frame: git's output arrives in pipe-sized chunks, far below it. */
const MAX_PAYLOAD = 16 * 1024 * 1024;

export function frame(type: number, payload: Buffer | string): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const head = Buffer.allocUnsafe(5);
  head.writeUInt8(type, 0);
  head.writeUInt32BE(body.length, 1);
  return Buffer.concat([head, body]);
}

/** Splits a byte stream into frames, handing each to `onFrame` as it completes. */
export class FrameReader {
  private pending: Buffer[] = [];
  private size = 0;

  constructor(private readonly onFrame: (type: number, payload: Buffer) => void) {}

  /** Takes the next bytes; false when they are not frames (the connection should be dropped). */
  push(chunk: Buffer): boolean {
    this.pending.push(chunk);
    this.size += chunk.length;
    while (this.size >= 5) {
      const buffer = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending);
      const length = buffer.readUInt32BE(1);
      if (length > MAX_PAYLOAD) return false;
      if (buffer.length < 5 + length) {
        this.pending = [buffer];
        return true;
      }
      const type = buffer.readUInt8(0);
      const payload = buffer.subarray(5, 5 + length);
      const rest = buffer.subarray(5 + length);
      this.pending = rest.length ? [rest] : [];
      this.size = rest.length;
      this.onFrame(type, payload);
    }
    return true;
  }
}
