/**
 * The git spawner (src/git/spawner.ts): a small process that starts `git` for the server. Starting a process copies
 * the starter's page tables, so in the server, whose memory holds the database's WebAssembly and the schema, each
 * start blocked its event loop for milliseconds to tens of them (22 ms at 300 MB); here, at 50 MB, it takes about one.
 *
 * It listens on the Unix socket named by its first argument, in a folder only its user may enter. Each connection
 * is one git run, in frames of `type (1 byte) | length (4 bytes, big-endian) | payload` (FRAME in spawner.ts): the
 * server sends the run, then its standard input; this process sends git's output, then how it exited. A connection
 * that closes early kills its git. The process ends when the server's end of its standard input closes, so it never
 * outlives the server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Socket } from 'node:net';
import { FRAME, frame, FrameReader, type RunRequest } from './spawner-frames.js';

/** Standard error kept per run: git says what went wrong in its last lines. */
const MAX_STDERR = 64 * 1024;

function serve(socket: Socket): void {
  let child: ChildProcess | null = null;
  let exited = false;
  let stderrSize = 0;
  const send = (type: number, payload: Buffer | string) => {
    if (!socket.destroyed) return socket.write(frame(type, payload));
    return true;
  };
  const start = (request: RunRequest) => {
    child = spawn('git', request.args, { env: request.env, cwd: request.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const git = child;
    git.stdout!.on('data', (chunk: Buffer) => {
      if (!send(FRAME.stdout, chunk)) {
        git.stdout!.pause();
        socket.once('drain', () => git.stdout!.resume());
      }
    });
    git.stderr!.on('data', (chunk: Buffer) => {
      if (stderrSize >= MAX_STDERR) return;
      stderrSize += chunk.length;
      send(FRAME.stderr, chunk);
    });
    // git may exit before reading its input (e.g. an unknown revision): that is its answer.
    git.stdin!.on('error', () => {});
    git.on('error', (error: NodeJS.ErrnoException) => {
      exited = true;
      send(FRAME.exit, JSON.stringify({ code: null, signal: null, error: error.code ?? error.message }));
      socket.end();
    });
    git.on('close', (code, signal) => {
      exited = true;
      send(FRAME.exit, JSON.stringify({ code, signal }));
      socket.end();
    });
  };
  const reader = new FrameReader((type, payload) => {
    if (type === FRAME.run && !child) return start(JSON.parse(payload.toString('utf8')) as RunRequest);
    if (!child) return socket.destroy();
    const git = child;
    if (type === FRAME.stdin) {
      if (!git.stdin!.write(payload)) {
        socket.pause();
        git.stdin!.once('drain', () => socket.resume());
      }
    } else if (type === FRAME.stdinEnd) git.stdin!.end();
    else if (type === FRAME.kill) git.kill(payload.toString('utf8') as NodeJS.Signals);
  });
  socket.on('data', (chunk: Buffer) => {
    if (!reader.push(chunk)) socket.destroy();
  });
  socket.on('error', () => socket.destroy());
  socket.on('close', () => {
    const git = child as ChildProcess | null;
    if (git && !exited) git.kill('SIGKILL');
  });
}

const path = process.argv[2];
if (!path) {
  process.stderr.write('usage: spawner-process <socket path>\n');
  process.exit(2);
}
const server = createServer(serve);
server.listen(path, () => process.stdout.write('ready\n'));
process.stdin.on('data', () => {});
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
