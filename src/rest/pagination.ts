/**
 * GitLab's pagination for REST: offset pages (`page`/`per_page`) and, on lists that have it, keyset pages
 * (`pagination=keyset` with `order_by`/`sort`); connection arguments out, headers back.
 */
import type { Request } from 'express';
import { MAX_PAGE_SIZE, encodeCursor } from '../graphql/connection.js';
import { invalidParams, paginationNotAllowed } from '../errors.js';
import { paramText } from '../http/params.js';
import type { KeysetPagination } from './route.js';

export interface OffsetPage {
  page: number;
  perPage: number;
}

export interface KeysetPage {
  kind: 'keyset';
  perPage: number;
  /** The connection cursor to continue after (cursor-linked lists), or null for the first page. */
  after: string | null;
  link: KeysetPagination['link'];
  sort: 'asc' | 'desc';
}

export type RestPage = (OffsetPage & { kind: 'offset' }) | KeysetPage;

/** REST's default `per_page` (GitLab's Kaminari default, spec: 20). */
export const DEFAULT_PER_PAGE = 20;

/** GitLab's default plan limit `offset_pagination_limit`: offset pages of keyset-capable lists end there. */
export const OFFSET_LIMIT = 50_000;
/** Kaminari's MAX_COUNT_LIMIT: above this many rows GitLab stops counting (no `X-Total`, `X-Total-Pages`, `last`). */
export const MAX_COUNT_LIMIT = 10_000;

function integerParam(raw: unknown, name: string, fallback: number, errors: string[]): number {
  if (raw === undefined || raw === null || raw === '') return fallback;
  const text = paramText(raw) ?? '';
  if (!/^-?\d+$/.test(text)) {
    errors.push(`${name} is invalid`);
    return fallback;
  }
  return Number(text);
}

/** Reads `page` and `per_page` as GitLab does: per_page 0 is refused, values above 100 are clamped. */
export function readOffsetPage(params: Record<string, unknown>): OffsetPage {
  const errors: string[] = [];
  const page = integerParam(params.page, 'page', 1, errors);
  const perPage = integerParam(params.per_page, 'per_page', DEFAULT_PER_PAGE, errors);
  if (!errors.length) {
    if (perPage === 0) errors.push('per_page has a value not allowed');
    else if (perPage < 0) errors.push('per_page does not have a valid value');
    if (page < 1) errors.push('page does not have a valid value');
  }
  if (errors.length) throw invalidParams(errors);
  return { page, perPage: Math.min(perPage, MAX_PAGE_SIZE) };
}

/**
 * The page a request asks for, as GitLab's pagination strategies decide it: keyset when asked for on a list that has
 * it (for this caller), with an order it takes (else 405); otherwise offset, refused (405) beyond the offset limit of
 * keyset-capable lists.
 */
export function readPage(params: Record<string, unknown>, keyset: KeysetPagination | undefined, anonymous: boolean): RestPage {
  const offset = readOffsetPage(params);
  if (!keyset || (keyset.anonymousOnly && !anonymous)) return { kind: 'offset', ...offset };
  if (params.pagination === 'keyset') {
    const order = (paramText(params.order_by ?? keyset.defaultOrder) ?? '').toLowerCase();
    const sort = (paramText(params.sort ?? keyset.defaultSort) ?? '').toLowerCase();
    const sorts: readonly string[] | undefined = Object.hasOwn(keyset.orders, order) ? keyset.orders[order] : undefined;
    if (!sorts?.includes(sort)) throw paginationNotAllowed('Keyset pagination is not yet available for this type of request');
    const cursor = keyset.link === 'cursor' && typeof params.cursor === 'string' && params.cursor !== '' ? params.cursor : null;
    return { kind: 'keyset', perPage: offset.perPage, after: cursor, link: keyset.link, sort: sort === 'asc' ? 'asc' : 'desc' };
  }
  if (keyset.enforced !== false && offset.page * offset.perPage > OFFSET_LIMIT) {
    throw paginationNotAllowed(
      `Offset pagination has a maximum allowed offset of ${OFFSET_LIMIT} for requests that return objects of type ${keyset.model}. ` +
        'Remaining records can be retrieved using keyset pagination.',
    );
  }
  return { kind: 'offset', ...offset };
}

/** The connection arguments that select this page. */
function isKeyset(page: OffsetPage | KeysetPage): page is KeysetPage {
  return 'kind' in page && page.kind === 'keyset';
}

export function connectionArgs(page: OffsetPage | KeysetPage): { first: number; after: string | null } {
  if (isKeyset(page)) return { first: page.perPage, after: page.after };
  const offset = (page.page - 1) * page.perPage;
  return { first: page.perPage, after: offset > 0 ? encodeCursor(offset - 1) : null };
}

/** The request's URL under EXTERNAL_URL with its query parameters, some replaced (GitLab's `page_href`). */
function pageUrl(req: Request, externalUrl: string, replace: Record<string, unknown>): string {
  const base = `${externalUrl}${req.originalUrl.split('?')[0]}`;
  const all: Record<string, unknown> = { ...(req.query as Record<string, unknown>), ...replace };
  // Only scalars and lists of them are carried over (a nested parameter is no page's business).
  const pair = (name: string, value: unknown) => {
    const text = paramText(value);
    return text === undefined ? [] : [`${encodeURIComponent(name)}=${encodeURIComponent(text)}`];
  };
  const qs = Object.keys(all)
    .sort()
    .flatMap((k) => {
      const v = all[k];
      return Array.isArray(v) ? v.flatMap((item) => pair(`${k}[]`, item)) : pair(k, v);
    })
    .join('&');
  return `${base}?${qs}`;
}

/**
 * Most a `Link` header holds. Its URLs repeat the request's query, so a long query (a search of kilobytes) would make
 * it several times as long, past what clients read of an answer's headers (16 KB in Node's http and undici), and the
 * whole answer would be lost to them. Links are kept while they fit, the ones clients walk by first (next, prev,
 * first, last), and sent in GitLab's order; the `X-` headers still name the pages.
 */
const LINK_LIMIT = 8 * 1024;
const LINK_PRIORITY = ['next', 'prev', 'first', 'last'];

/** `Link` from [rel, url] pairs in GitLab's order (prev, next, first, last). */
function linkHeader(links: readonly (readonly [string, string])[]): Record<string, string> {
  const text = links.map(([rel, url]) => `<${url}>; rel="${rel}"`);
  const kept = new Set<number>();
  let size = 0;
  for (const rel of LINK_PRIORITY) {
    const i = links.findIndex(([r]) => r === rel);
    if (i < 0 || size + text[i].length + 2 > LINK_LIMIT) continue;
    kept.add(i);
    size += text[i].length + 2;
  }
  return kept.size ? { Link: text.filter((_, i) => kept.has(i)).join(', ') } : {};
}

/**
 * A keyset page's only header: `Link` to the next page, when there is one (GitLab sends no `X-` headers). A
 * cursor-linked list has one when its connection says so; an ID-linked one (projects) whenever this page has
 * rows, as GitLab's pager links on from its last row, the empty page ending the walk.
 */
export function keysetHeaders(req: Request, externalUrl: string, page: KeysetPage, next: { hasNextPage: boolean; endCursor: string | null; lastId: unknown }): Record<string, string> {
  let replace: Record<string, unknown> | null = null;
  if (page.link === 'cursor' && next.hasNextPage && next.endCursor) replace = { cursor: next.endCursor };
  if (page.link === 'id' && next.lastId != null) replace = { [page.sort === 'asc' ? 'id_after' : 'id_before']: next.lastId };
  return replace ? linkHeader([['next', pageUrl(req, externalUrl, { ...replace, per_page: page.perPage })]]) : {};
}

/**
 * `X-Total`, `X-Total-Pages`, `X-Page`, `X-Per-Page`, `X-Next-Page`, `X-Prev-Page` and `Link`, as GitLab sends them.
 * Without a total (`null`: GitLab's `without_count`), the totals and the `last` link are left out and a full page
 * (`shown` items) has a next one, as Kaminari decides it. Above MAX_COUNT_LIMIT rows GitLab leaves them out too
 * (it counts no further); the next page is still known here, from the count.
 */
export function paginationHeaders(req: Request, externalUrl: string, { page, perPage }: OffsetPage, total: number | null, shown: number): Record<string, string> {
  const totalPages = total === null ? null : Math.max(1, Math.ceil(total / perPage));
  const next = (totalPages === null ? shown >= perPage : page < totalPages) ? page + 1 : null;
  const prev = page > 1 ? page - 1 : null;
  const counted = totalPages !== null && total !== null && total <= MAX_COUNT_LIMIT;
  const link = (p: number) => pageUrl(req, externalUrl, { page: p, per_page: perPage });
  const links: [string, string][] = [];
  if (prev) links.push(['prev', link(prev)]);
  if (next) links.push(['next', link(next)]);
  links.push(['first', link(1)]);
  if (counted) links.push(['last', link(totalPages)]);
  return {
    ...(counted ? { 'X-Total': String(total), 'X-Total-Pages': String(totalPages) } : {}),
    'X-Page': String(page),
    'X-Per-Page': String(perPage),
    'X-Next-Page': next ? String(next) : '',
    'X-Prev-Page': prev ? String(prev) : '',
    ...linkHeader(links),
  };
}
