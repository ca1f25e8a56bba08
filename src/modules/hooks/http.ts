/**
 * One webhook request: a POST of JSON, held to the URL blocker on every hop (the URL's own host, the addresses DNS
 * gives at connect time, and each redirect's target), within one deadline for all of it, TLS verified as the hook
 * says. Never throws: what happened is in the outcome.
 */
import http from 'node:http';
import https from 'node:https';
import { BlockedUrlError, checkUrl, guardedLookup, type UrlPolicy } from '../../http/url-blocker.js';

/** Kept of a response body in the delivery log (GitLab's WebHookLog truncates to 8 KB too). */
export const RESPONSE_BODY_LIMIT = 8 * 1024;
/** Redirects followed, as Gitlab::HTTP's default limit. */
const MAX_REDIRECTS = 3;

export interface DeliveryRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  verifyTls: boolean;
  policy: UrlPolicy;
}

export interface DeliveryOutcome {
  /** Null when no response came (refused, unreachable, timed out, blocked). */
  status: number | null;
  headers: Record<string, string>;
  body: string;
  durationMs: number;
  /** Why no response came. */
  error: string | null;
  /** The URL blocker refused it: retrying cannot help. */
  blocked: boolean;
}

interface Hop {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function once(url: URL, method: string, headers: Record<string, string>, body: string | null, request: DeliveryRequest, signal: AbortSignal): Promise<Hop> {
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.request(
      url,
      {
        method,
        headers: body === null ? headers : { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
        lookup: guardedLookup(request.policy) as never,
        rejectUnauthorized: request.verifyTls,
        signal,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (chunk: Buffer) => {
          // Read all of it (the receiver may wait for that), keep the start.
          if (kept < RESPONSE_BODY_LIMIT) {
            chunks.push(chunk.subarray(0, RESPONSE_BODY_LIMIT - kept));
            kept += Math.min(chunk.length, RESPONSE_BODY_LIMIT - kept);
          }
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

export async function deliver(request: DeliveryRequest): Promise<DeliveryOutcome> {
  const started = performance.now();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), request.timeoutMs);
  const finish = (partial: Omit<DeliveryOutcome, 'durationMs'>): DeliveryOutcome => {
    clearTimeout(timer);
    return { ...partial, durationMs: performance.now() - started };
  };
  let method = 'POST';
  let body: string | null = request.body;
  let target = request.url;
  try {
    for (let hop = 0; ; hop++) {
      const url = checkUrl(target, request.policy);
      const res = await once(url, method, request.headers, body, request, controller.signal);
      const location = res.headers.location;
      if (res.status >= 300 && res.status < 400 && location && hop < MAX_REDIRECTS) {
        target = new URL(location, url).toString();
        // 307 and 308 repeat the request; the others turn it into a GET, as HTTP clients do.
        if (res.status !== 307 && res.status !== 308) {
          method = 'GET';
          body = null;
        }
        continue;
      }
      return finish({ status: res.status, headers: flatHeaders(res.headers), body: res.body, error: null, blocked: false });
    }
  } catch (err) {
    const blocked = err instanceof BlockedUrlError;
    const message = controller.signal.aborted ? `execution expired after ${request.timeoutMs} ms` : err instanceof Error ? err.message : String(err);
    return finish({ status: null, headers: {}, body: '', error: message, blocked });
  }
}
