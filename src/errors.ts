/**
 * The closed set of error codes. Code throws only through these helpers; the same table gives each code's
 * REST status and body, so the REST adapter only looks them up and GraphQL clients see `extensions.code`.
 */
import { GraphQLError } from 'graphql';

export type ErrorCode =
  | 'BAD_USER_INPUT'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'INSUFFICIENT_SCOPE'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'RATE_LIMITED'
  | 'INTERNAL_SERVER_ERROR';

export interface ErrorExtensions {
  code: ErrorCode;
  /** BAD_USER_INPUT about request parameters, in Grape's words: `name is missing`. */
  params?: string[];
  /** BAD_USER_INPUT about a record's fields: `{ name: ['is too long'] }`. */
  fields?: Record<string, string[]>;
  /** NOT_FOUND: the resource named in `404 <Resource> Not Found`. */
  resource?: string;
  /** FORBIDDEN: the reason after `403 Forbidden - `. */
  reason?: string;
  /** INSUFFICIENT_SCOPE: the scopes the operation accepts. */
  scopes?: string[];
  /** UNAUTHENTICATED: token-specific OAuth error description. */
  tokenError?: string;
  /** RATE_LIMITED: seconds until the caller's window opens again. */
  retryAfter?: number;
}

function coded(message: string, extensions: ErrorExtensions): GraphQLError {
  return new GraphQLError(message, { extensions: { ...extensions } });
}

export const missing = (...params: string[]) => invalidParams(params.map((p) => `${p} is missing`));
export const invalidParams = (messages: string[]) => coded(messages.join(', '), { code: 'BAD_USER_INPUT', params: messages });
export const invalidValue = (param: string) => invalidParams([`${param} does not have a valid value`]);
export const invalid = (fields: Record<string, string[]>) =>
  coded(Object.entries(fields).map(([f, m]) => `${f} ${m.join(', ')}`).join('; '), { code: 'BAD_USER_INPUT', fields });
/** A 400 whose body is `{"message": message}` verbatim, as GitLab's `render_api_error!(message, 400)`. */
export const rejected = (message: string) => coded(message, { code: 'BAD_USER_INPUT' });
export const unauthenticated = (tokenError?: string) =>
  coded(tokenError ?? '401 Unauthorized', { code: 'UNAUTHENTICATED', ...(tokenError ? { tokenError } : {}) });
export const forbidden = (reason?: string) =>
  coded(reason ? `403 Forbidden - ${reason}` : '403 Forbidden', { code: 'FORBIDDEN', ...(reason ? { reason } : {}) });
export const insufficientScope = (scopes: string[]) =>
  coded('The request requires higher privileges than provided by the access token.', { code: 'INSUFFICIENT_SCOPE', scopes });
export const notFound = (resource?: string) =>
  coded(resource ? `404 ${resource} Not Found` : '404 Not Found', { code: 'NOT_FOUND', ...(resource ? { resource } : {}) });
export const conflict = (message: string) => coded(message, { code: 'CONFLICT' });

export interface RestError {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

const TOKEN_ERRORS = {
  expired: 'Token is expired. You can either do re-authorization or token refresh.',
  revoked: 'Token was revoked. You have to re-authorize from the user.',
} as const;
export const tokenErrors = TOKEN_ERRORS;

/** GitLab's answer for an error thrown anywhere below the adapter. */
export function restError(error: GraphQLError): RestError {
  const ext = (error.extensions ?? {}) as Partial<ErrorExtensions>;
  switch (ext.code) {
    case 'BAD_USER_INPUT':
      if (ext.fields) return { status: 400, body: { message: ext.fields } };
      if (ext.params) return { status: 400, body: { error: ext.params.join(', ') } };
      return { status: 400, body: { message: error.message } };
    case 'UNAUTHENTICATED':
      if (ext.tokenError) {
        const description = ext.tokenError;
        return {
          status: 401,
          body: { error: 'invalid_token', error_description: description },
          headers: {
            'WWW-Authenticate': `Bearer realm="Protected by OAuth 2.0", error="invalid_token", error_description="${description}"`,
          },
        };
      }
      return { status: 401, body: { message: '401 Unauthorized' } };
    case 'FORBIDDEN':
      return { status: 403, body: { message: error.message } };
    case 'INSUFFICIENT_SCOPE':
      return {
        status: 403,
        body: { error: 'insufficient_scope', error_description: error.message, scope: (ext.scopes ?? []).join(' ') },
      };
    case 'NOT_FOUND':
      return { status: 404, body: { message: error.message } };
    case 'CONFLICT':
      return { status: 409, body: { message: error.message } };
    case 'PAYLOAD_TOO_LARGE':
      return { status: 413, body: { message: '413 Request Entity Too Large' } };
    case 'RATE_LIMITED':
      return { status: 429, body: { message: '429 Too Many Requests' }, headers: { 'Retry-After': String(ext.retryAfter ?? 60) } };
    default:
      return { status: 500, body: { message: '500 Internal Server Error' } };
  }
}

export const rateLimited = (retryAfter: number) => coded('429 Too Many Requests', { code: 'RATE_LIMITED', retryAfter });
export const payloadTooLarge = () => coded('413 Request Entity Too Large', { code: 'PAYLOAD_TOO_LARGE' });

/** Errors that are ours to show; anything else is an unexpected failure and is masked. */
export function isCoded(error: unknown): error is GraphQLError {
  return error instanceof GraphQLError && typeof error.extensions?.code === 'string' && error.extensions.code !== 'INTERNAL_SERVER_ERROR';
}

/**
 * Database refusals that are the caller's concern, as coded errors: a unique index rejecting a row a concurrent
 * request wrote first is a conflict (the services' own checks answer the ordinary duplicate). Null otherwise.
 */
export function fromDatabase(error: unknown): GraphQLError | null {
  const cause = error instanceof GraphQLError && error.originalError ? error.originalError : error;
  const code = cause && typeof cause === 'object' ? (cause as { code?: unknown }).code : undefined;
  return code === 'P2002' ? conflict('409 Conflict') : null;
}
