/** The server as a child process, the way `npm start` runs it: started, and awaited until it logs that it listens. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export const ROOT = new URL('../../', import.meta.url).pathname;

export interface Started {
  child: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

/** Spawns `command` in the project folder (detached: a process group of its own) and waits for its "listening" line. */
export async function startProcess(command: string, args: string[], env: Record<string, string>, options: { detached?: boolean } = {}): Promise<Started> {
  const child = spawn(command, args, {
    cwd: ROOT,
    detached: options.detached ?? false,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', DATABASE_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setInterval(() => {
      const line = out.split('\n').find((l) => l.includes('"msg":"listening"'));
      if (line) {
        clearInterval(timer);
        resolve(Number(new URL(JSON.parse(line).url).port));
      }
    }, 50);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`exited with ${code}: ${out}`));
    });
  });
  return { child, port, output: () => out, exited };
}

/** A port nobody listens on now (for a server whose EXTERNAL_URL must be the address its clients call). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Runs a command to its end, with its standard output and error together. */
export function runCommand(command: string, args: string[], options: { env?: Record<string, string>; cwd?: string } = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}
