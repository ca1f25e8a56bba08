/**
 * Where the project's folders are, wherever the running code sits: `src/` under tsx (tests), `dist/` as compiled one
 * file per source, or `dist/bundle/` as `npm start` runs it (src/build.mjs). Every path the server reads or spawns
 * from is taken from here, not from a module's own location, which bundling changes.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
  return dir;
}

/** The project folder (package.json, prisma/, graphql/). */
export const ROOT = projectRoot();

/** Whether TypeScript runs as is (tsx), rather than compiled JavaScript. */
export const RUNNING_TYPESCRIPT = import.meta.url.endsWith('.ts');

/** The folder of the code's modules one file per source: `src/` under tsx, `dist/` compiled. */
export const CODE_DIR = join(ROOT, RUNNING_TYPESCRIPT ? 'src' : 'dist');

/** A module of this code base as a file to run (a worker, a child process): `.ts` under tsx, `.js` compiled. */
export function codeFile(pathWithoutExtension: string): string {
  return join(CODE_DIR, `${pathWithoutExtension}${RUNNING_TYPESCRIPT ? '.ts' : '.js'}`);
}

/**
 * The code a `new Worker(…, { eval: true })` runs to load a module of this code base: the compiled file, or under tsx
 * the TypeScript file once tsx is registered in the worker (workers do not inherit the main thread's loader).
 */
export function workerBootstrap(pathWithoutExtension: string): string {
  const script = pathToFileURL(codeFile(pathWithoutExtension)).href;
  if (!RUNNING_TYPESCRIPT) return `import(${JSON.stringify(script)});`;
  const tsx = import.meta.resolve('tsx/esm/api');
  return `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(script)}); });`;
}
