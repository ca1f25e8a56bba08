/** The server as a child process, the way `npm start` runs it: started, and awaited until it logs that it listens. */
import { spawn, type ChildProcess } from 'node:child_process';

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
