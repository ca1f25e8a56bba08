/**
 * A `dotenv` report as GitLab reads it (Ci::ParseDotenvArtifactService): the uploaded file (gzip, as the runner
 * sends it) must be smaller than `dotenv_size` bytes; each line is `KEY=VALUE`, split at the first `=`, both sides
 * stripped (no comments, no blank lines, no quotes or expansion); a key named twice keeps its last value (in its first place); at most
 * `dotenv_variables` distinct keys; keys as any job variable's (letters, digits and `_`, at most 255). GitLab's
 * plan limits of the default plan (self-managed): 5 KB and 20 variables.
 */
import { gunzipSync } from 'node:zlib';

export const DOTENV_LIMITS = { size: 5120, variables: 20 } as const;

/** Why a dotenv report was refused, in GitLab's words (the upload's `400` message). */
export class DotenvError extends Error {}

const KEY = /^[a-zA-Z0-9_]+$/;

/** Ruby's String#strip: leading and trailing whitespace and NUL. */
const strip = (text: string) => text.replace(/^[\s\0]+|[\s\0]+$/g, '');

/** The variables of a gzip-compressed dotenv file of `size` bytes, or DotenvError. */
export function parseDotenv(file: Buffer, limits: { size: number; variables: number } = DOTENV_LIMITS): { key: string; value: string }[] {
  if (!(file.length < limits.size)) throw new DotenvError(`Dotenv Artifact Too Big. Maximum Allowable Size: ${limits.size}`);
  let text: string;
  try {
    // A gzip stream of several members (one per file) reads as their contents one after the other.
    text = gunzipSync(file, { maxOutputLength: 64 * limits.size }).toString('utf8');
  } catch {
    throw new DotenvError('Invalid Format');
  }
  const variables = new Map<string, string>();
  // Ruby's each_line: every line keeps its newline, and the text after the last one is a line of its own.
  const lines = text.split(/(?<=\n)/).filter((line) => line !== '');
  for (const line of lines) {
    // Ruby's /^(.*?)=(.*)$/ on the line: `.` stops at its newline.
    const match = /^([^\n]*?)=([^\n]*)$/m.exec(line);
    if (!match) throw new DotenvError('Invalid Format');
    const [key, value] = [strip(match[1]), strip(match[2])];
    const problems = [...(key === '' ? ["Key can't be blank"] : []), ...(key.length > 255 ? ['Key is too long (maximum is 255 characters)'] : []), ...(KEY.test(key) ? [] : ["Key can contain only letters, digits and '_'."])];
    if (problems.length) throw new DotenvError(`Validation failed: ${problems.join(', ')}`);
    variables.set(key, value);
  }
  if (variables.size > limits.variables) throw new DotenvError(`Dotenv files cannot have more than ${limits.variables} variables`);
  return [...variables].map(([key, value]) => ({ key, value }));
}
