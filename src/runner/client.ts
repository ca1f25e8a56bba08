/**
 * The runner's side of GitLab's runner protocol, over HTTP only (what GitLab Runner's network/gitlab.go does):
 * ask for a job, report on it, patch its log, upload and download artifacts. Nothing here knows the server's code.
 */
import { Readable } from 'node:stream';

/** The job as `POST /jobs/request` hands it over (the fields this runner uses). */
export interface JobPayload {
  id: number;
  token: string;
  job_info: { id: number; name: string; stage: string; project_id: number; project_name: string };
  git_info: { repo_url: string; ref: string; sha: string; before_sha: string; ref_type: string; refspecs: string[]; depth: number };
  runner_info: { timeout: number };
  variables: { key: string; value: string; public: boolean; masked: boolean; file?: boolean; raw?: boolean }[];
  steps: { name: string; script: string[]; timeout: number; when: string; allow_failure: boolean }[];
  artifacts: { name?: string | null; untracked?: boolean | null; paths: string[]; exclude?: string[]; when: string; expire_in?: string | null; artifact_type: string; artifact_format: string }[] | null;
  dependencies: { id: number; name: string; token: string; artifacts_file?: { filename: string; size: number } }[];
  cache?: { key: string; untracked: boolean; paths: string[]; policy: string; when: string; fallback_keys?: string[] }[] | null;
  image?: { name: string } | null;
  services?: { name: string }[] | null;
  /** GitLab's job hooks: `pre_get_sources_script` runs before the sources are fetched. */
  hooks?: { name: string; script: string[] }[] | null;
  /** `secrets:` the runner is to resolve into variables, by variable name. */
  secrets?: Record<string, Record<string, unknown>> | null;
}

export interface RunnerIdentity {
  name: string;
  version: string;
  revision: string;
  platform: string;
  architecture: string;
  executor: string;
  shell: string;
  features: Record<string, boolean>;
}

/** What the server said of the job on a patch or an update: whether to go on. */
export interface JobState {
  status: number;
  /** `Job-Status`: canceled, canceling or failed mean stop. */
  remoteState: string | null;
}

export function aborted(state: JobState): boolean {
  return state.status === 403 || state.remoteState === 'canceled' || state.remoteState === 'canceling' || state.remoteState === 'failed';
}

export class ProtocolClient {
  readonly api: string;

  constructor(
    url: string,
    private readonly token: string,
    private readonly identity: RunnerIdentity,
  ) {
    this.api = `${url.replace(/\/+$/, '')}/api/v4`;
  }

  private async json(method: string, path: string, body: unknown, signal?: AbortSignal): Promise<Response> {
    return fetch(`${this.api}${path}`, { method, headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify(body), signal });
  }

  /** `POST /runners/verify`: whether the server knows this runner's token. */
  async verify(): Promise<boolean> {
    const res = await this.json('POST', '/runners/verify', { token: this.token, info: this.identity });
    await res.body?.cancel();
    return res.status === 200;
  }

  /**
   * `POST /jobs/request`: a job, `null` with the queue state to send next time (the server may hold the request
   * until a job comes), or `forbidden` when the token is not (or no longer) a runner's.
   */
  async requestJob(lastUpdate: string | null, signal: AbortSignal): Promise<{ job: JobPayload } | { lastUpdate: string | null } | 'forbidden'> {
    const res = await this.json('POST', '/jobs/request', { token: this.token, info: this.identity, ...(lastUpdate ? { last_update: lastUpdate } : {}) }, signal);
    if (res.status === 201) return { job: (await res.json()) as JobPayload };
    await res.body?.cancel();
    if (res.status === 403) return 'forbidden';
    if (res.status !== 204) throw new Error(`job request answered ${res.status}`);
    return { lastUpdate: res.headers.get('x-gitlab-last-update') };
  }

  /** `PUT /jobs/:id`: running (a heartbeat), or the job's end. */
  async updateJob(job: JobPayload, update: { state: 'running' | 'success' | 'failed'; failure_reason?: string; exit_code?: number; checksum?: string; output?: { checksum: string; bytesize: number } }): Promise<JobState> {
    const res = await this.json('PUT', `/jobs/${job.id}`, { token: job.token, info: this.identity, ...update });
    await res.body?.cancel();
    return { status: res.status, remoteState: res.headers.get('job-status') };
  }

  /** `PATCH /jobs/:id/trace`: the log from `offset`; on 416 the server's size to resume from. */
  async patchTrace(job: JobPayload, offset: number, content: Buffer): Promise<JobState & { size: number | null }> {
    const res = await fetch(`${this.api}/jobs/${job.id}/trace`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'text/plain', 'JOB-TOKEN': job.token, 'Content-Range': `${offset}-${offset + content.length - 1}` },
      body: content,
    });
    await res.body?.cancel();
    const range = /^0-(\d+)$/.exec(res.headers.get('range') ?? '');
    return { status: res.status, remoteState: res.headers.get('job-status'), size: range ? Number(range[1]) : null };
  }

  /** `POST /jobs/:id/artifacts`: streams `file` as the multipart body's `file`; the status, and the reason of a refusal. */
  async uploadArtifact(job: JobPayload, file: Readable, options: { fileName: string; type: string; format: string; expireIn: string | null }): Promise<{ status: number; message: string | null }> {
    const boundary = `----gitlab-runner-${Date.now().toString(16)}${Math.random().toString(16).slice(2)}`;
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${options.fileName.replace(/"/g, '')}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const body = Readable.from(
      (async function* () {
        yield head;
        for await (const chunk of file) yield chunk as Buffer;
        yield tail;
      })(),
    );
    const query = new URLSearchParams({ artifact_type: options.type, artifact_format: options.format, ...(options.expireIn ? { expire_in: options.expireIn } : {}) });
    const res = await fetch(`${this.api}/jobs/${job.id}/artifacts?${query}`, {
      method: 'POST',
      headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'JOB-TOKEN': job.token },
      body: Readable.toWeb(body) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    // The refusal's reason (`{"message": …}` or `{"error": …}`), as gitlab-runner logs it.
    const text = res.status >= 400 ? await res.text().catch(() => '') : (await res.body?.cancel(), '');
    let message: string | null = null;
    try {
      const parsed = JSON.parse(text) as { message?: unknown; error?: unknown };
      message = typeof parsed.message === 'string' ? parsed.message : typeof parsed.error === 'string' ? parsed.error : null;
    } catch {
      message = null;
    }
    return { status: res.status, message };
  }

  /** `GET /jobs/:id/artifacts` with the running job's token: the dependency's archive, or the status that refused it. */
  async downloadArtifacts(dependencyId: number, token: string): Promise<Readable | number> {
    const res = await fetch(`${this.api}/jobs/${dependencyId}/artifacts`, { headers: { 'JOB-TOKEN': token } });
    if (res.status !== 200 || !res.body) {
      await res.body?.cancel();
      return res.status;
    }
    return Readable.fromWeb(res.body as import('node:stream/web').ReadableStream);
  }
}
