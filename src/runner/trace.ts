/**
 * A job's log on the runner's side (GitLab Runner's network/trace.go): kept whole (up to the output limit), sent in
 * patches from the last byte the server acknowledged, every update interval or sooner when much is waiting,
 * resumed from the server's size on `416`. Between patches the job is reported running, so a cancel is noticed
 * even when the job prints nothing; a `403`, or a `Job-Status` of canceled or failed, stops the job.
 */
import { crc32 } from 'node:zlib';
import { maskTrace } from '../ci/mask.js';
import { aborted, type JobPayload, type JobState, type ProtocolClient } from './client.js';

/** GitLab Runner's DefaultTracePatchLimit: the most sent in one patch. */
const PATCH_LIMIT = 1024 * 1024;
/** Attempts at sending the rest of the log once the job ended. */
const FINAL_ATTEMPTS = 20;
/** Sent before the interval is up when this much is waiting. */
const EAGER_BYTES = 64 * 1024;

export interface TraceOptions {
  /** How often the log is sent, and how long a quiet job waits before it is reported running. */
  updateIntervalMs: number;
  /** The most of a job's log kept (GitLab Runner's output_limit, 4 MiB by default). */
  outputLimit: number;
  /** Called once when the server says the job stopped (canceled, failed, or its token refused). */
  onAbort(): void;
}

export class JobTrace {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private sent = 0;
  private truncated = false;
  private timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> | undefined;
  private lastContact = Date.now();
  private abortedOnce = false;
  /** The values of the job's masked variables, and the written end that could begin one. */
  private readonly secrets: string[];

  /** Masks `value` from now on too (a secret the runner resolved). */
  mask(value: string): void {
    if (value !== '' && !this.secrets.includes(value)) this.secrets.push(value);
  }
  private held: Buffer = Buffer.alloc(0);

  constructor(
    private readonly client: ProtocolClient,
    private readonly job: JobPayload,
    private readonly options: TraceOptions,
  ) {
    this.secrets = job.variables.filter((v) => v.masked && v.value !== '').map((v) => v.value);
  }

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.options.updateIntervalMs);
  }

  write(data: Buffer | string): void {
    // gitlab-runner masks the job's masked variables itself (ID tokens are made for this run alone, so only the
    // runner knows them); an end that could begin a value waits for the next write.
    const masked = maskTrace(this.held, typeof data === 'string' ? Buffer.from(data) : data, this.secrets, false);
    this.held = masked.held;
    this.append(masked.store);
  }

  private append(data: Buffer): void {
    if (this.truncated || data.length === 0) return;
    let bytes = data;
    if (this.size + bytes.length > this.options.outputLimit) {
      bytes = bytes.subarray(0, Math.max(0, this.options.outputLimit - this.size));
      this.truncated = true;
    }
    this.chunks.push(bytes);
    this.size += bytes.length;
    if (this.truncated) {
      const note = Buffer.from(`\n\x1b[31;1mJob's log exceeded limit of ${this.options.outputLimit} bytes.\nJob execution will continue but no more output will be collected.\x1b[0;m\n`);
      this.chunks.push(note);
      this.size += note.length;
    }
    if (this.size - this.sent >= EAGER_BYTES) void this.tick();
  }

  /** The whole log as written so far. */
  private content(): Buffer {
    if (this.chunks.length > 1) this.chunks.splice(0, this.chunks.length, Buffer.concat(this.chunks));
    return this.chunks[0] ?? Buffer.alloc(0);
  }

  private seen(state: JobState): void {
    this.lastContact = Date.now();
    if (aborted(state) && !this.abortedOnce) {
      this.abortedOnce = true;
      this.options.onAbort();
    }
  }

  /** Sends what is waiting (one patch), or reports the job running when it has been quiet. */
  private tick(): Promise<void> {
    return (this.sending ??= this.send().finally(() => (this.sending = undefined)));
  }

  private async send(): Promise<void> {
    try {
      if (this.sent < this.size) {
        const patch = this.content().subarray(this.sent, Math.min(this.size, this.sent + PATCH_LIMIT));
        const result = await this.client.patchTrace(this.job, this.sent, patch);
        if (result.status === 202) this.sent += patch.length;
        else if (result.status === 416 && result.size !== null) this.sent = Math.min(result.size, this.size);
        this.seen(result);
      } else if (Date.now() - this.lastContact >= this.options.updateIntervalMs) {
        this.seen(await this.client.updateJob(this.job, { state: 'running' }));
      }
    } catch {
      // The server is unreachable for now: the next tick tries again from the same byte.
    }
  }

  /** Stops the timer and sends the rest of the log (a bounded number of attempts); the checksum and size GitLab Runner reports. */
  async finish(): Promise<{ checksum: string; bytesize: number }> {
    clearInterval(this.timer);
    this.append(maskTrace(this.held, Buffer.alloc(0), this.secrets, true).store);
    this.held = Buffer.alloc(0);
    await this.sending;
    for (let attempt = 0; this.sent < this.size && attempt < FINAL_ATTEMPTS && !this.abortedOnce; attempt++) {
      const before = this.sent;
      await this.tick();
      if (this.sent === before) await new Promise((r) => setTimeout(r, Math.min(1000, this.options.updateIntervalMs)));
    }
    const content = this.content();
    return { checksum: `crc32:${crc32(content).toString(16)}`, bytesize: content.length };
  }
}
