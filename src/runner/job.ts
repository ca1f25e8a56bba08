/**
 * One job on the shell executor, as GitLab Runner runs it: a fresh folder, the repository fetched with the job's
 * token at the job's commit, the dependencies' artifacts extracted into it, `before_script` and `script` in one
 * shell (`set -e`, each command echoed), `after_script` in another whatever happened, the declared artifacts
 * uploaded when their `when` says, and the job's end reported. The job's processes run in their own process
 * group, killed when the job times out or is canceled. The folder is removed afterwards.
 */
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { artifactFiles, extractZip, gzipMembers, zipStream } from './artifacts.js';
import { LocalCache } from './cache.js';
import { installReleaseCli } from './release-cli.js';
import { resolveVaultSecret, type VaultSecret } from './secrets.js';
import type { JobPayload, ProtocolClient, RunnerIdentity } from './client.js';
import { JobTrace } from './trace.js';

export interface JobOptions {
  client: ProtocolClient;
  identity: RunnerIdentity;
  /** Where job folders are made. */
  buildsDir: string;
  /** GitLab Runner's `clone_url`: fetch from here rather than the URL the server names (its external URL). */
  cloneUrl: string | null;
  /** `bash` when the machine has it, else `sh`. */
  shell: 'bash' | 'sh';
  concurrentId: number;
  /** gitlab-runner's cache_dir: the local cache of every project's jobs. */
  cacheDir: string;
  updateIntervalMs: number;
  outputLimit: number;
  log(level: 'info' | 'warn' | 'error', msg: string, fields?: object): void;
}

type Outcome = { state: 'success' } | { state: 'failed'; reason: string; exitCode?: number; message: string };

/** GitLab Runner's after_script timeout. */
const AFTER_SCRIPT_TIMEOUT_MS = 5 * 60 * 1000;
/** How long a killed job's processes get between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 1000;
/** Environment variables of the runner that jobs inherit; nothing else of the runner's environment leaks into a job. */
const INHERITED = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TMPDIR', 'USER', 'SHELL'];

const GREEN = '\x1b[32;1m';
const YELLOW = '\x1b[0;33m';
const RED = '\x1b[31;1m';
const RESET = '\x1b[0;m';

/** `'…'` for the shell. */
const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** Seconds as GitLab Runner words a timeout (Go's Duration: `1h0m0s`, `2s`). */
function goDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h ? `${h}h${m}m${s}s` : m ? `${m}m${s}s` : `${s}s`;
}

export class JobRun {
  private readonly trace: JobTrace;
  private readonly deadline: number;
  private canceled = false;
  /** Stopped by the runner itself (it is shutting down): reported as a system failure. */
  private terminated = false;
  private killCurrent: (() => void) | undefined;

  constructor(
    private readonly job: JobPayload,
    private readonly options: JobOptions,
  ) {
    this.trace = new JobTrace(options.client, job, { updateIntervalMs: options.updateIntervalMs, outputLimit: options.outputLimit, onAbort: () => this.cancel() });
    this.deadline = Date.now() + job.runner_info.timeout * 1000;
  }

  /** Stops the job: its processes are killed and its end is not reported (the server already knows it). */
  cancel(): void {
    this.canceled = true;
    this.killCurrent?.();
  }

  /** Stops the job because the runner stops: its processes are killed, and it is reported failed (system failure). */
  terminate(): void {
    this.terminated = true;
    this.killCurrent?.();
  }

  private line(text: string): void {
    this.trace.write(`${text}\n`);
  }

  /** The repository's URL to fetch: GitLab Runner's GetRemoteURL, with `clone_url` when set. */
  private remoteUrl(env: Record<string, string>): string {
    const clone = this.options.cloneUrl?.replace(/\/+$/, '');
    if (!clone || !/^https?:\/\//.test(clone)) return this.job.git_info.repo_url;
    const [scheme, rest] = clone.split('://');
    return `${scheme}://gitlab-ci-token:${encodeURIComponent(this.job.token)}@${rest}/${env.CI_PROJECT_PATH}.git`;
  }

  /** Runs `args` (no shell), its output into the log unless `quiet`; its exit code. */
  private command(cmd: string, args: string[], cwd: string, env: Record<string, string>, quiet = false): Promise<number> {
    return new Promise((resolve) => {
      const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
      if (!quiet) {
        child.stdout.on('data', (d: Buffer) => this.trace.write(d));
        child.stderr.on('data', (d: Buffer) => this.trace.write(d));
      } else {
        child.stdout.resume();
        child.stderr.resume();
      }
      child.on('error', () => resolve(127));
      child.on('close', (code) => resolve(code ?? 1));
    });
  }

  /** Runs commands in one shell, each echoed first; `timedOut` when `limitMs` passed and its processes were killed. */
  private async script(commands: string[], dir: string, env: Record<string, string>, limitMs: number, scratch: string, name: string): Promise<{ code: number; timedOut: boolean }> {
    const body = [this.options.shell === 'bash' ? 'set -eo pipefail' : 'set -e'];
    for (const command of commands) {
      const [first, ...more] = command.split('\n');
      const shown = more.length && more.some((l) => l.trim()) ? `${first} # collapsed multi-line command` : first;
      body.push(`printf '%s\\n' ${quote(`${GREEN}$ ${shown}${RESET}`)}`, command);
    }
    const file = join(scratch, `${name}.sh`);
    await writeFile(file, `${body.join('\n')}\n`, { mode: 0o700 });
    return new Promise((resolve) => {
      const child = spawn(this.options.shell, [file], { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      let timedOut = false;
      const kill = () => {
        const group = child.pid;
        if (group === undefined) return;
        const signal = (sig: NodeJS.Signals) => {
          try {
            process.kill(-group, sig);
          } catch {
            // The group is gone already.
          }
        };
        signal('SIGTERM');
        setTimeout(() => signal('SIGKILL'), KILL_GRACE_MS).unref();
      };
      const timer = setTimeout(() => {
        timedOut = true;
        kill();
      }, Math.max(0, limitMs));
      this.killCurrent = kill;
      child.stdout.on('data', (d: Buffer) => this.trace.write(d));
      child.stderr.on('data', (d: Buffer) => this.trace.write(d));
      child.on('error', () => {
        clearTimeout(timer);
        resolve({ code: 127, timedOut });
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        this.killCurrent = undefined;
        resolve({ code: code ?? (signal ? 128 + 15 : 1), timedOut });
      });
    });
  }

  /** The job's environment: what the runner defines, then the job's variables (file variables as files). */
  private async environment(projectDir: string, buildsDir: string, scratch: string): Promise<Record<string, string>> {
    const env: Record<string, string> = {};
    for (const key of INHERITED) if (process.env[key] !== undefined) env[key] = process.env[key] as string;
    Object.assign(env, {
      CI_BUILDS_DIR: buildsDir,
      CI_PROJECT_DIR: projectDir,
      CI_CONCURRENT_ID: String(this.options.concurrentId),
      CI_CONCURRENT_PROJECT_ID: String(this.options.concurrentId),
      CI_SHARED_ENVIRONMENT: 'true',
      CI_JOB_TIMEOUT: String(this.job.runner_info.timeout),
      CI_RUNNER_VERSION: this.options.identity.version,
      CI_RUNNER_REVISION: this.options.identity.revision,
      CI_RUNNER_EXECUTABLE_ARCH: `${this.options.identity.platform}/${this.options.identity.architecture}`,
    });
    for (const variable of this.job.variables) {
      if (variable.file) {
        const path = join(scratch, variable.key);
        await writeFile(path, variable.value, { mode: 0o600 });
        env[variable.key] = path;
      } else env[variable.key] = variable.value;
    }
    return env;
  }

  private async fetchSources(projectDir: string, env: Record<string, string>): Promise<boolean> {
    const { git_info: git } = this.job;
    const gitEnv = { ...env, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1' };
    this.line(`${git.depth > 0 ? `Fetching changes with git depth set to ${git.depth}...` : 'Fetching changes...'}`);
    await mkdir(projectDir, { recursive: true });
    const steps: string[][] = [
      ['init', '-q', '.'],
      ['remote', 'add', 'origin', this.remoteUrl(env)],
      ['-c', 'credential.helper=', 'fetch', 'origin', '--prune', '--quiet', ...(git.depth > 0 ? ['--depth', String(git.depth)] : []), ...git.refspecs],
      ['-c', 'advice.detachedHead=false', 'checkout', '-f', '-q', git.sha],
    ];
    for (const [i, args] of steps.entries()) {
      // Never print the remote (it carries the job's token): git's own output goes to the log for the fetch and checkout only.
      const code = await this.command('git', args, projectDir, gitEnv, i < 2);
      if (code !== 0) return false;
      if (i === 0) this.line(`Created fresh repository.`);
    }
    this.line(`Checking out ${git.sha.slice(0, 8)} as detached HEAD (ref is ${git.ref})...`);
    return true;
  }

  /** Downloads and extracts the artifacts of the jobs this one depends on; false when one cannot be had. */
  private async downloadDependencies(projectDir: string, scratch: string): Promise<boolean> {
    for (const dependency of this.job.dependencies) {
      if (!dependency.artifacts_file) continue;
      this.line(`Downloading artifacts for ${dependency.name} (${dependency.id})...`);
      const download = await this.options.client.downloadArtifacts(dependency.id, dependency.token);
      if (typeof download === 'number') {
        this.line(`${RED}ERROR: Downloading artifacts from coordinator... ${download === 404 ? 'not found' : download === 403 ? 'forbidden' : 'failed'}${RESET}  id=${dependency.id} status=${download}`);
        return false;
      }
      const zip = join(scratch, `dependency-${dependency.id}.zip`);
      await pipeline(download, createWriteStream(zip));
      await extractZip(zip, projectDir, (text) => this.line(`${YELLOW}WARNING: ${text}${RESET}`));
      await rm(zip, { force: true });
      this.line(`Downloading artifacts from coordinator... ok        id=${dependency.id}`);
    }
    return true;
  }

  /** Uploads the artifacts whose `when` matches the job's state; false when an upload was refused. */
  private async uploadArtifacts(projectDir: string, succeeded: boolean, env: Record<string, string>): Promise<boolean> {
    // gitlab-runner expands the job's variables in `name`, `paths` and `exclude` ($VAR, ${VAR}; unknown ones are empty).
    const expand = (text: string) => text.replace(/\$(?:\{(\w+)\}|(\w+))/g, (_m, a?: string, b?: string) => env[(a ?? b) as string] ?? '');
    for (const given of this.job.artifacts ?? []) {
      const artifact = { ...given, name: given.name && expand(given.name), paths: given.paths.map(expand), exclude: given.exclude?.map(expand) };
      const when = artifact.when || 'on_success';
      if (!(when === 'always' || (when === 'on_success') === succeeded)) continue;
      this.line(`Uploading artifacts for ${succeeded ? 'successful' : 'failed'} job`);
      const warn = (text: string) => this.line(`${YELLOW}WARNING: ${text}${RESET}`);
      const files = await artifactFiles(projectDir, artifact, warn);
      if (files.length === 0) {
        warn(`${artifact.paths.join(', ')}: no matching files`);
        this.line(`${RED}ERROR: No files to upload${RESET}`);
        continue;
      }
      // gitlab-runner's artifacts-uploader: a zip, a gzip member per file, or one file as it is (raw).
      const format = artifact.artifact_format;
      if (format === 'raw' && files.length > 1) {
        this.line(`${RED}ERROR: Uploading artifacts as "${artifact.artifact_type}" to coordinator... only one file can be sent as raw${RESET}`);
        return false;
      }
      const base = basename(artifact.name || '') || (format === 'zip' ? 'artifacts' : artifact.artifact_type);
      const stream = format === 'gzip' ? gzipMembers(projectDir, files) : format === 'raw' ? createReadStream(join(projectDir, files[0])) : zipStream(projectDir, files);
      const fileName = format === 'gzip' ? `${base}.gz` : format === 'raw' ? base : `${base}.zip`;
      const { status, message } = await this.options.client.uploadArtifact(this.job, stream, { fileName, type: artifact.artifact_type, format: artifact.artifact_format, expireIn: artifact.expire_in ?? null });
      if (status !== 201) {
        const why = status === 413 ? 'too large archive' : `failed${message ? ` (${message})` : ''}`;
        this.line(`${RED}ERROR: Uploading artifacts as "${artifact.artifact_type}" to coordinator... ${why}${RESET}  id=${this.job.id} status=${status}`);
        return false;
      }
      this.line(`Uploading artifacts as "${artifact.artifact_type}" to coordinator... 201 Created  id=${this.job.id} responseStatus=201 Created`);
    }
    return true;
  }

  private async execute(root: string): Promise<Outcome> {
    const projectDir = join(root, 'builds', String(this.job.job_info.project_id));
    const scratch = join(root, 'tmp');
    await mkdir(scratch, { recursive: true });
    const env = await this.environment(projectDir, join(root, 'builds'), scratch);
    const remaining = () => this.deadline - Date.now();
    const timeoutMessage = `execution took longer than ${goDuration(this.job.runner_info.timeout)} seconds`;
    // gitlab-runner resolves `secrets:` before the job's scripts: each becomes a masked variable, a file unless the
    // secret says `file: false`. This runner resolves Vault's KV secrets; any other provider fails the job.
    const secrets = Object.entries(this.job.secrets ?? {});
    if (secrets.length) {
      this.line(`${GREEN}Resolving secrets${RESET}`);
      const expandJob = (text: string) => text.replace(/\$(?:\{(\w+)\}|(\w+))/g, (_m, a?: string, b?: string) => env[(a ?? b) as string] ?? '');
      for (const [name, settings] of secrets) {
        this.line(`Resolving secret "${name}"...`);
        const provider = Object.keys(settings).find((key) => key !== 'file' && key !== 'token') ?? 'unknown';
        if (provider !== 'vault') {
          this.line(`${RED}ERROR: Resolving secrets: secret "${name}": provider "${provider}" is not supported by this runner${RESET}`);
          return { state: 'failed', reason: 'runner_system_failure', message: 'resolving secrets: no supported secrets provider' };
        }
        this.line(`Using "vault" secret resolver...`);
        let value: string;
        try {
          value = await resolveVaultSecret(settings.vault as VaultSecret, expandJob);
        } catch (error) {
          this.line(`${RED}ERROR: Resolving secrets: secret "${name}": ${(error as Error).message}${RESET}`);
          return { state: 'failed', reason: 'runner_system_failure', message: `resolving secrets: ${(error as Error).message}` };
        }
        this.trace.mask(value);
        if (settings.file === false) env[name] = value;
        else {
          const path = join(scratch, name);
          await writeFile(path, value, { mode: 0o600 });
          env[name] = path;
        }
      }
    }
    // gitlab-runner's get_sources stage: the pre_get_sources_script hook first, in the builds directory, then the fetch.
    const preGetSources = (this.job.hooks ?? []).filter((hook) => hook.name === 'pre_get_sources_script').flatMap((hook) => hook.script);
    if (preGetSources.length) {
      const buildsDir = join(root, 'builds');
      await mkdir(buildsDir, { recursive: true });
      const { code, timedOut } = await this.script(preGetSources, buildsDir, env, remaining(), scratch, 'pre_get_sources_script');
      if (timedOut) return { state: 'failed', reason: 'job_execution_timeout', message: timeoutMessage };
      if (code !== 0) return { state: 'failed', reason: 'script_failure', exitCode: code, message: `exit code ${code}` };
    }
    if (env.GIT_STRATEGY === 'none') {
      await mkdir(projectDir, { recursive: true });
      this.line('Skipping Git repository setup');
    } else if (!(await this.fetchSources(projectDir, env))) {
      return { state: 'failed', reason: 'script_failure', exitCode: 1, message: 'exit code 1' };
    }
    // gitlab-runner expands the job's variables in each cache's key, fallback keys and policy, and tries the
    // CACHE_FALLBACK_KEY variable last (never one ending in `-protected`: it would reach a protected ref's cache).
    const expand = (text: string) => text.replace(/\$(?:\{(\w+)\}|(\w+))/g, (_m, a?: string, b?: string) => env[(a ?? b) as string] ?? '');
    const fallback = env.CACHE_FALLBACK_KEY ? expand(env.CACHE_FALLBACK_KEY) : '';
    const caches = (this.job.cache ?? []).map((c) => ({
      ...c,
      key: expand(c.key),
      policy: expand(c.policy || 'pull-push') || 'pull-push',
      fallback_keys: [...(c.fallback_keys ?? []).map(expand), ...(fallback && !fallback.endsWith('-protected') ? [fallback] : [])],
    }));
    if (fallback.endsWith('-protected')) this.line(`${YELLOW}WARNING: CACHE_FALLBACK_KEY "${fallback}" not allowed to end in "-protected"${RESET}`);
    const cache = new LocalCache(this.options.cacheDir, env.CI_PROJECT_PATH || String(this.job.job_info.project_id), (text) => this.line(text));
    if (caches.some((c) => c.policy !== 'push')) {
      this.line(`${GREEN}Restoring cache${RESET}`);
      await cache.restore(caches, projectDir);
    }
    if (!(await this.downloadDependencies(projectDir, scratch))) return { state: 'failed', reason: 'missing_dependency_failure', message: 'missing dependency' };
    // gitlab-runner runs each step but after_script in order, as stage `step_<name>`: an on_success step only while
    // the job succeeds, an on_failure one only once it failed, an always one whatever happened.
    let outcome: Outcome = { state: 'success' };
    for (const step of this.job.steps) {
      if (step.name === 'after_script' || this.canceled || this.terminated) continue;
      const failed = outcome.state === 'failed';
      if ((step.when === 'on_success' && failed) || (step.when === 'on_failure' && !failed)) continue;
      this.line(`${GREEN}Executing "step_${step.name}" stage of the job script${RESET}`);
      // The shell executor has no release-cli image: the release step finds the runner's own on its PATH.
      const stepEnv = step.name === 'release' ? { ...env, PATH: `${await installReleaseCli(join(scratch, 'bin'), this.options.client.api)}:${env.PATH ?? ''}` } : env;
      const { code, timedOut } = await this.script(step.script, projectDir, stepEnv, remaining(), scratch, `step_${step.name}`);
      if (failed) continue;
      if (timedOut) outcome = { state: 'failed', reason: 'job_execution_timeout', message: timeoutMessage };
      else if (code !== 0 && !step.allow_failure) outcome = { state: 'failed', reason: 'script_failure', exitCode: code, message: `exit code ${code}` };
    }
    const after = this.job.steps.find((s) => s.name === 'after_script');
    if (after && !this.canceled && !this.terminated) {
      this.line(`${GREEN}Running after_script${RESET}`);
      const status = outcome.state === 'success' ? 'success' : 'failed';
      const { code, timedOut } = await this.script(after.script, projectDir, { ...env, CI_JOB_STATUS: status }, AFTER_SCRIPT_TIMEOUT_MS, scratch, 'after_script');
      if (timedOut) this.line(`${YELLOW}WARNING: after_script failed, but job will continue unaffected: execution took longer than ${goDuration(AFTER_SCRIPT_TIMEOUT_MS / 1000)} seconds${RESET}`);
      else if (code !== 0) this.line(`${YELLOW}WARNING: after_script failed, but job will continue unaffected: exit code ${code}${RESET}`);
    }
    if (caches.length && !this.canceled && !this.terminated) await cache.save(caches, projectDir, outcome.state === 'success');
    if (!this.canceled && !this.terminated && !(await this.uploadArtifacts(projectDir, outcome.state === 'success', env)) && outcome.state === 'success') {
      outcome = { state: 'failed', reason: 'unknown_failure', message: 'uploading artifacts failed' };
    }
    return outcome;
  }

  /** Runs the job to its end and reports it (unless it was canceled). */
  async run(): Promise<void> {
    const { job, options } = this;
    this.trace.start();
    this.line(`Running with ${options.identity.name} ${options.identity.version} (${options.identity.revision})`);
    this.line(`${GREEN}Preparing the "shell" executor${RESET}`);
    this.line(`Using Shell (${options.shell}) executor...`);
    // gitlab-runner's shell executor runs on the host: it says so of `image:` and `services:`.
    if (job.image?.name) this.line(`${YELLOW}WARNING: Image "${job.image.name}" is ignored by the shell executor${RESET}`);
    for (const service of job.services ?? []) this.line(`${YELLOW}WARNING: Service "${service.name}" is ignored by the shell executor${RESET}`);
    await mkdir(options.buildsDir, { recursive: true });
    const root = await mkdtemp(join(options.buildsDir, `job-${job.id}-`));
    let outcome: Outcome;
    try {
      outcome = await this.execute(root);
      if (this.terminated) outcome = { state: 'failed', reason: 'runner_system_failure', message: 'aborted: terminated' };
    } catch (error) {
      outcome = { state: 'failed', reason: 'runner_system_failure', message: (error as Error).message };
    } finally {
      this.line(`${GREEN}Cleaning up project directory and file based variables${RESET}`);
      await rm(root, { recursive: true, force: true });
    }
    if (this.canceled) {
      this.line(`${RED}ERROR: Job failed: canceled${RESET}`);
      await this.trace.finish();
      options.log('info', 'job canceled', { job: job.id });
      return;
    }
    this.line(outcome.state === 'success' ? `${GREEN}Job succeeded${RESET}` : `${RED}ERROR: Job failed: ${outcome.message}${RESET}`);
    const output = await this.trace.finish();
    const update = {
      state: outcome.state,
      ...(outcome.state === 'failed' ? { failure_reason: outcome.reason, ...(outcome.exitCode !== undefined ? { exit_code: outcome.exitCode } : {}) } : { exit_code: 0 }),
      checksum: output.checksum,
      output,
    };
    // A runner that is stopping tries once: the server may be stopping too.
    for (let attempt = 0; attempt < (this.terminated ? 1 : 10) && !this.canceled; attempt++) {
      const result = await options.client.updateJob(job, update).catch(() => null);
      if (result && (result.status === 200 || result.status === 403 || result.status === 404)) break;
      await new Promise((r) => setTimeout(r, Math.min(1000 * 2 ** attempt, 10_000)));
    }
    options.log('info', 'job finished', { job: job.id, state: outcome.state });
  }
}
