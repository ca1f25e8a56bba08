/**
 * The worker thread that plans pipelines (src/ci/config/thread.ts starts it): one configuration at a time, with a
 * context whose reads (repository files, other projects, parent artifacts) are asked of the main thread.
 */
import { parentPort } from 'node:worker_threads';
import { planPipeline } from './plan.js';
import type { CiContext, IncludedProject } from './types.js';
import type { Call, FromWorker, ToWorker } from './thread.js';

if (!parentPort) throw new Error('src/ci/config/worker.ts runs as a worker thread (src/ci/config/thread.ts)');
const port = parentPort;
const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
let nextCall = 1;

function ask(call: Call): Promise<unknown> {
  const id = nextCall++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    port.postMessage({ type: 'call', id, call } satisfies FromWorker);
  });
}

function project(found: (Omit<IncludedProject, 'read' | 'files'> & { handle: number }) | null): IncludedProject | null {
  if (!found) return null;
  const { handle, ...rest } = found;
  return {
    ...rest,
    read: (path) => ask({ op: 'projectRead', handle, path }) as Promise<string | null>,
    files: () => ask({ op: 'projectFiles', handle }) as Promise<readonly string[]>,
  };
}

port.on('message', async (message: ToWorker) => {
  if (message.type === 'answer') {
    const call = waiting.get(message.id);
    waiting.delete(message.id);
    if ('error' in message) call?.reject(new Error(message.error));
    else call?.resolve(message.value);
    return;
  }
  const { variables, changes, inputs, has, options } = message;
  const ctx: CiContext = {
    variables,
    changes,
    inputs,
    readLocal: (path) => ask({ op: 'readLocal', path }) as Promise<string | null>,
    ...(has.listFiles ? { listFiles: () => ask({ op: 'listFiles' }) as Promise<readonly string[]> } : {}),
    ...(has.readArtifact ? { readArtifact: (job: string, path: string) => ask({ op: 'readArtifact', job, path }) as ReturnType<NonNullable<CiContext['readArtifact']>> } : {}),
    ...(has.readProject ? { readProject: async (path: string, ref: string | null) => project((await ask({ op: 'readProject', path, ref })) as Parameters<typeof project>[0]) } : {}),
  };
  try {
    port.postMessage({ type: 'done', plan: await planPipeline(message.content, ctx, options) } satisfies FromWorker);
  } catch (error) {
    const { message: text, stack } = error instanceof Error ? error : new Error(String(error));
    port.postMessage({ type: 'failed', error: { message: text, stack } } satisfies FromWorker);
  }
});
port.postMessage({ type: 'ready' } satisfies FromWorker);
