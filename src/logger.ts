/** One logger: JSON lines on stdout, filtered by level, carrying whatever fields the caller binds (request id). */
import type { LogLevel } from './config.js';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(fields: object, msg?: string): void;
  info(fields: object, msg?: string): void;
  warn(fields: object, msg?: string): void;
  error(fields: object, msg?: string): void;
  child(fields: object): Logger;
}

let batch: string[] = [];

function flush(): void {
  if (!batch.length) return;
  const chunk = batch.join('');
  batch = [];
  process.stdout.write(chunk);
}
process.on('exit', flush);

/**
 * Lines logged within one turn of the event loop go to stdout in one write: under load that is one system call
 * per batch of requests, not one per request. Whatever is pending is written when the process exits.
 */
function toStdout(line: string): void {
  if (batch.push(line) === 1) setImmediate(flush);
}

export function createLogger(level: LogLevel, bound: object = {}, write: (line: string) => void = toStdout): Logger {
  const min = RANK[level];
  const log = (lvl: Exclude<LogLevel, 'silent'>) => (fields: object, msg?: string) => {
    if (RANK[lvl] < min) return;
    write(`${JSON.stringify({ time: new Date().toISOString(), level: lvl, ...bound, ...fields, ...(msg ? { msg } : {}) })}\n`);
  };
  return {
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
    child: (fields) => createLogger(level, { ...bound, ...fields }, write),
  };
}
