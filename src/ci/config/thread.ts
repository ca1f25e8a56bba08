/**
 * Pipeline planning off the event loop, with a deadline. Measured (issue 23): the bounded YAML loader answers a bomb
 * in 6-100 ms, but composing and validating a legitimate 1,500-job configuration takes about a second, all of it
 * synchronous JavaScript between two reads. Slicing that work would mean awaiting inside every step of the engine
 * (YAML, includes, `extends`, `!reference`, entries), slowing all of it and still not bounding one long step; a
 * worker thread keeps the engine as it is, leaves the main thread free for other requests, and can be stopped at
 * the deadline, however the time is being spent. The worker asks the main thread for every read (the context's
 * functions stay here, with their database and repository access), so the engine needs nothing of the server.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { workerBootstrap } from '../../paths.js';
import { failed } from './plan.js';
import type { CiContext, IncludedProject, PipelinePlan, PlanOptions } from './types.js';
import { TOO_BIG } from './yaml.js';

/** GitLab's Gitlab::Ci::Config::TIMEOUT_MESSAGE, when building the configuration passes its deadline. */
export const TIMEOUT_MESSAGE = 'Request timed out when fetching configuration files.';
/** GitLab's Gitlab::Ci::Config::TIMEOUT_SECONDS default. */
const DEADLINE_MS = 30_000;
/** The heap one planning thread may take: a configuration within the YAML bounds needs a small part of it. */
const HEAP_MB = 512;

/** A read the worker asks of the main thread. */
export type Call =
  | { op: 'readLocal'; path: string }
  | { op: 'listFiles' }
  | { op: 'readArtifact'; job: string; path: string }
  | { op: 'readProject'; path: string; ref: string | null }
  | { op: 'projectRead'; handle: number; path: string }
  | { op: 'projectFiles'; handle: number };

export type ToWorker =
  | { type: 'plan'; content: string; variables: Record<string, string>; changes: readonly string[] | undefined; inputs?: Readonly<Record<string, unknown>> | null; options: PlanOptions; has: { listFiles: boolean; readArtifact: boolean; readProject: boolean } }
  | { type: 'answer'; id: number; value: unknown }
  | { type: 'answer'; id: number; error: string };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'call'; id: number; call: Call }
  | { type: 'done'; plan: PipelinePlan }
  | { type: 'failed'; error: { message: string; stack?: string } };

/** A context function the worker asked for: it asks only for those the context has (the `has` of its plan). */
function present<F>(fn: F | undefined, op: string): F {
  if (!fn) throw new Error(`the CI context has no ${op}`);
  return fn;
}

interface Job {
  content: string;
  ctx: CiContext;
  options: PlanOptions;
  resolve(plan: PipelinePlan): void;
  reject(error: unknown): void;
}

/** One worker thread, planning one configuration at a time. */
class PlanningThread {
  private readonly worker = new Worker(workerBootstrap('ci/config/worker'), { eval: true, resourceLimits: { maxOldGenerationSizeMb: HEAP_MB } });
  readonly ready: Promise<void>;
  /** Where the worker's messages go while it plans; null while idle. */
  private onMessage: ((message: FromWorker) => void) | null = null;
  private onExit: ((error: Error) => void) | null = null;
  /** Set when the deadline stopped the thread: it cannot plan again, though it may not have exited yet. */
  private stopped = false;

  constructor() {
    this.ready = new Promise((resolve, reject) => {
      this.onMessage = (message) => message.type === 'ready' && resolve();
      this.onExit = reject;
    });
    this.worker.on('message', (message: FromWorker) => this.onMessage?.(message));
    this.worker.on('error', (error) => this.onExit?.(error));
    this.worker.on('exit', (code) => this.onExit?.(new Error(`the CI planning thread exited (code ${code})`)));
  }

  /** Plans one configuration; past `deadlineMs` the thread is stopped and the plan fails with GitLab's timeout error. */
  async plan(job: Job, deadlineMs: number): Promise<void> {
    const { ctx } = job;
    const projects: IncludedProject[] = [];
    /** A read that failed here: the plan's failure is that error itself (a coded error keeps its code). */
    let readError: unknown;
    const answer = async (id: number, call: Call) => {
      try {
        const value = await this.read(ctx, projects, call);
        this.worker.postMessage({ type: 'answer', id, value } satisfies ToWorker);
      } catch (error) {
        readError ??= error;
        this.worker.postMessage({ type: 'answer', id, error: error instanceof Error ? error.message : String(error) } satisfies ToWorker);
      }
    };
    this.worker.ref();
    try {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          job.resolve(failed(TIMEOUT_MESSAGE));
          resolve();
          this.stopped = true;
          void this.worker.terminate();
        }, deadlineMs);
        const settle = (outcome: () => void) => {
          clearTimeout(timer);
          outcome();
          resolve();
        };
        this.onMessage = (message) => {
          if (message.type === 'call') void answer(message.id, message.call);
          else if (message.type === 'done') settle(() => job.resolve(message.plan));
          else if (message.type === 'failed') settle(() => job.reject(readError ?? Object.assign(new Error(message.error.message), { stack: message.error.stack })));
        };
        // A configuration that fills the thread's heap is one too big to plan.
        this.onExit = (error) => settle(() => ((error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY' ? job.resolve(failed(TOO_BIG)) : job.reject(error)));
        this.worker.postMessage({
          type: 'plan',
          content: job.content,
          variables: ctx.variables,
          changes: ctx.changes,
          inputs: ctx.inputs ?? null,
          options: job.options,
          has: { listFiles: !!ctx.listFiles, readArtifact: !!ctx.readArtifact, readProject: !!ctx.readProject },
        } satisfies ToWorker);
      });
    } finally {
      this.onMessage = null;
      this.onExit = null;
      this.worker.unref();
    }
  }

  private async read(ctx: CiContext, projects: IncludedProject[], call: Call): Promise<unknown> {
    switch (call.op) {
      case 'readLocal':
        return ctx.readLocal(call.path);
      case 'listFiles':
        return present(ctx.listFiles, call.op)();
      case 'readArtifact':
        return present(ctx.readArtifact, call.op)(call.job, call.path);
      case 'readProject': {
        const found = await present(ctx.readProject, call.op)(call.path, call.ref);
        if (!found) return null;
        const { read: _read, files: _files, ...rest } = found;
        return { ...rest, handle: projects.push(found) - 1 };
      }
      case 'projectRead':
        return projects[call.handle].read(call.path);
      case 'projectFiles':
        return projects[call.handle].files();
    }
  }

  get alive(): boolean {
    return !this.stopped && this.worker.threadId !== -1;
  }
}

/** Worker threads that plan pipelines, started when first needed, a queue in front of them. */
export class Planner {
  private readonly idle: PlanningThread[] = [];
  private readonly queue: Job[] = [];
  private running = 0;

  constructor(
    private readonly threads = Math.max(1, Math.min(2, availableParallelism() - 1)),
    private readonly deadlineMs = DEADLINE_MS,
  ) {}

  plan(content: string, ctx: CiContext, options: PlanOptions = {}): Promise<PipelinePlan> {
    return new Promise((resolve, reject) => {
      this.queue.push({ content, ctx, options, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    while (this.running < this.threads) {
      const job = this.queue.shift();
      if (!job) return;
      this.running++;
      void this.run(job).finally(() => {
        this.running--;
        this.next();
      });
    }
  }

  private async run(job: Job): Promise<void> {
    const kept = this.idle.pop();
    const thread = kept?.alive ? kept : new PlanningThread();
    try {
      await thread.ready;
    } catch (error) {
      job.reject(error);
      return;
    }
    await thread.plan(job, this.deadlineMs).catch(job.reject);
    if (thread.alive) this.idle.push(thread);
  }
}

let shared: Planner | undefined;

/** GitLab's pipeline plan of a configuration (see plan.ts), computed on a worker thread within GitLab's deadline. */
export async function planPipeline(content: string, ctx: CiContext, options: PlanOptions = {}): Promise<PipelinePlan> {
  shared ??= new Planner();
  return maskPlan(await shared.plan(content, ctx, options), ctx.masked ?? []);
}

/**
 * The plan with masked variables' values shown as `[MASKED]` where a configuration's text can echo them: errors,
 * warnings and included files' locations (GitLab's External::Context#mask_variables_from).
 */
function maskPlan(plan: PipelinePlan, masked: readonly string[]): PipelinePlan {
  const values = masked.filter((value) => value.length > 0);
  if (values.length === 0) return plan;
  const mask = (text: string) => values.reduce((out, value) => out.split(value).join('[MASKED]'), text);
  const maybe = (text: string | null) => (text === null ? null : mask(text));
  return {
    ...plan,
    errors: plan.errors.map(mask),
    warnings: plan.warnings.map(mask),
    includes: plan.includes?.map((include) => ({ ...include, location: mask(include.location), blob: maybe(include.blob), raw: maybe(include.raw) })) ?? null,
  };
}
