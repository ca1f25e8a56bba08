/** File paths given to the repository API: relative, inside the repository, never into `.git`. */
import { argumentRefused, badRequest } from '../../errors.js';

/** Why git must not see this path, in Gitaly's words; null when it is fine. */
export function pathProblem(path: string): string | null {
  if (path === '') return 'You must provide a file path';
  if (path.includes('\0')) return `invalid path: '${path.replace(/\0/g, '\\0')}'`;
  const parts = path.split('/');
  if (path.startsWith('/') || parts.some((p) => p === '..' || p === '.')) return 'Path cannot include directory traversal';
  if (parts.some((p) => p === '' || p.toLowerCase() === '.git')) return `invalid path: '${path}'`;
  return null;
}

/** A path argument of a read or of the files API (`filePath`): Grape's `file_path should be a valid file path` when unfit. */
export function checkedPath(path: string, argument: string): string {
  if (pathProblem(path)) throw argumentRefused(argument, 'should be a valid file path');
  return path;
}

/** A path of a commit action: Gitaly's refusal, as the commits API answers it. */
export function checkedActionPath(path: string): string {
  const problem = pathProblem(path);
  if (problem) throw badRequest(problem);
  return path;
}
