/**
 * The built-in shell runner: `concurrency` workers, each asking the server for a job (a long poll, as GitLab
 * Runner's), running it, and asking again. It speaks only the runner protocol over HTTP, so GitLab Runner could
 * take its place, and any GitLab-compatible server could give it jobs.
 */
import { execFileSync } from 'node:child_process';
import { arch, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProtocolClient, type RunnerIdentity } from './client.js';
import { JobRun } from './job.js';

export const RUNNER_VERSION = '0.1.0';

export interface RunnerOptions {
  /** The server's URL (its API is `<url>/api/v4`). */
  url: string;
  /** The runner's authentication token (`glrt-…`). */
  token: string;
  /** Jobs run at once. */
  concurrency?: number;
  /** GitLab Runner's `clone_url`: where to fetch repositories from when the server's external URL does not reach it. */
  cloneUrl?: string | null;
  /** Where job folders are made (a folder of the system's temporary folder by default). */
  buildsDir?: string;
  /** gitlab-runner's cache_dir: where the local cache lives (`cache` beside the builds folder by default). */
  cacheDir?: string;
  /** How long stop() lets running jobs finish before ending them (0: at once). */
  shutdownTimeoutMs?: number;
  /** Pause after the server answered that there is no job (GitLab Runner's check_interval, 3 s). */
  checkIntervalMs?: number;
  /** How often a job's log is sent and a quiet job reported running (1 s). */
  updateIntervalMs?: number;
  /** The most of a job's log kept (GitLab Runner's output_limit, 4 MiB). */
  outputLimit?: number;
  log?(level: 'info' | 'warn' | 'error', msg: string, fields?: object): void;
}

/** `bash` when the machine has it (GitLab Runner's default shell), else POSIX `sh`. */
function detectShell(): 'bash' | 'sh' {
  try {
    execFileSync('bash', ['-c', 'true'], { stdio: 'ignore' });
    return 'bash';
  } catch {
    return 'sh';
  }
}

const GO_ARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64', ia32: '386', arm: 'arm' };

export class ShellRunner {
  private readonly client: ProtocolClient;
  private readonly identity: RunnerIdentity;
  private readonly shell: 'bash' | 'sh';
  private readonly controller = new AbortController();
  private readonly running = new Set<JobRun>();
  private lastUpdate: string | null = null;
  private workers: Promise<void>[] = [];
  private stopping = false;
  private readonly log: NonNullable<RunnerOptions['log']>;

  constructor(private readonly options: RunnerOptions) {
    this.shell = detectShell();
    this.identity = {
      name: 'gitlab-compatible-shell-runner',
      version: RUNNER_VERSION,
      revision: 'builtin',
      platform: process.platform,
      architecture: GO_ARCH[arch()] ?? arch(),
      executor: 'shell',
      shell: this.shell,
      features: { variables: true, artifacts: true, upload_multiple_artifacts: true, upload_raw_artifacts: true, artifacts_exclude: true, cancelable: true, trace_reset: true, trace_checksum: true, trace_size: true, multi_build_steps: true, return_exit_code: true },
    };
    this.client = new ProtocolClient(options.url, options.token, this.identity);
    this.log = options.log ?? (() => undefined);
  }

  /** Whether the server knows the token. */
  verify(): Promise<boolean> {
    return this.client.verify();
  }

  /** Starts the workers; they run until stop(). */
  start(): void {
    const concurrency = Math.max(1, this.options.concurrency ?? 1);
    this.workers = Array.from({ length: concurrency }, (_, i) => this.work(i + 1));
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.stopping) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.controller.signal.addEventListener('abort', done, { once: true });
    });
  }

  private async work(concurrentId: number): Promise<void> {
    const checkInterval = this.options.checkIntervalMs ?? 3000;
    while (!this.stopping) {
      let answer: Awaited<ReturnType<ProtocolClient['requestJob']>>;
      try {
        answer = await this.client.requestJob(this.lastUpdate, this.controller.signal);
      } catch (error) {
        if (this.stopping) break;
        this.log('warn', 'checking for jobs failed', { error: (error as Error).message });
        await this.pause(checkInterval);
        continue;
      }
      if (answer === 'forbidden') {
        this.log('error', 'checking for jobs: forbidden (is the runner token still valid?)');
        await this.pause(checkInterval);
        continue;
      }
      if ('lastUpdate' in answer) {
        this.lastUpdate = answer.lastUpdate;
        await this.pause(checkInterval);
        continue;
      }
      const run = new JobRun(answer.job, {
        client: this.client,
        identity: this.identity,
        buildsDir: this.options.buildsDir ?? join(tmpdir(), 'gitlab-shell-runner'),
        cloneUrl: this.options.cloneUrl ?? null,
        shell: this.shell,
        concurrentId,
        cacheDir: this.options.cacheDir ?? join(this.options.buildsDir ?? join(tmpdir(), 'gitlab-shell-runner'), 'cache'),
        updateIntervalMs: this.options.updateIntervalMs ?? 1000,
        outputLimit: this.options.outputLimit ?? 4 * 1024 * 1024,
        log: this.log,
      });
      this.log('info', 'job received', { job: answer.job.id, name: answer.job.job_info.name, project: answer.job.job_info.project_id });
      this.running.add(run);
      try {
        await run.run();
      } catch (error) {
        this.log('error', 'job run failed', { job: answer.job.id, error: (error as Error).message });
      } finally {
        this.running.delete(run);
      }
    }
  }

  /**
   * Stops asking for jobs, lets the running ones finish for up to `shutdownTimeoutMs` (gitlab-runner's graceful
   * shutdown), then ends those still running (their processes killed, reported failed), and waits for the workers.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.controller.abort();
    const grace = this.options.shutdownTimeoutMs ?? 0;
    if (grace > 0 && this.running.size) {
      this.log('info', 'waiting for running jobs to finish', { jobs: this.running.size, timeoutMs: grace });
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(this.workers), new Promise((done) => (timer = setTimeout(done, grace)))]);
      clearTimeout(timer);
    }
    for (const run of this.running) run.terminate();
    await Promise.all(this.workers);
  }
}
