/** GitLab's offset pagination for REST: `page`/`per_page` in, connection arguments out, headers back. */
import type { Request } from 'express';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, encodeCursor } from '../graphql/connection.js';
import { invalidParams } from '../errors.js';

export interface OffsetPage {
  page: number;
  perPage: number;
}

function integerParam(raw: unknown, name: string, fallback: number, errors: string[]): number {
  if (raw === undefined || raw === null || raw === '') return fallback;
  const text = String(raw);
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
  const perPage = integerParam(params.per_page, 'per_page', DEFAULT_PAGE_SIZE, errors);
  if (!errors.length) {
    if (perPage === 0) errors.push('per_page has a value not allowed');
    else if (perPage < 0) errors.push('per_page does not have a valid value');
    if (page < 1) errors.push('page does not have a valid value');
  }
  if (errors.length) throw invalidParams(errors);
  return { page, perPage: Math.min(perPage, MAX_PAGE_SIZE) };
}

/** The connection arguments that select this page. */
export function connectionArgs({ page, perPage }: OffsetPage): { first: number; after: string | null } {
  const offset = (page - 1) * perPage;
  return { first: perPage, after: offset > 0 ? encodeCursor(offset - 1) : null };
}

/**
 * `X-Total`, `X-Total-Pages`, `X-Page`, `X-Per-Page`, `X-Next-Page`, `X-Prev-Page` and `Link`, as GitLab sends them.
 * Without a total (`null`: GitLab's `without_count`), the totals and the `last` link are left out and a full page
 * (`shown` items) has a next one, as Kaminari decides it.
 */
export function paginationHeaders(req: Request, externalUrl: string, { page, perPage }: OffsetPage, total: number | null, shown: number): Record<string, string> {
  const totalPages = total === null ? null : Math.max(1, Math.ceil(total / perPage));
  const next = (totalPages === null ? shown >= perPage : page < totalPages) ? page + 1 : null;
  const prev = page > 1 ? page - 1 : null;
  const base = `${externalUrl}${req.originalUrl.split('?')[0]}`;
  const query = { ...(req.query as Record<string, unknown>) };
  const link = (p: number) => {
    const all: Record<string, unknown> = { ...query, page: p, per_page: perPage };
    const qs = Object.keys(all)
      .sort()
      .flatMap((k) => {
        const v = all[k];
        return Array.isArray(v)
          ? v.map((item) => `${encodeURIComponent(`${k}[]`)}=${encodeURIComponent(String(item))}`)
          : typeof v === 'object' && v !== null
            ? []
            : [`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`];
      })
      .join('&');
    return `${base}?${qs}`;
  };
  const links: string[] = [];
  if (prev) links.push(`<${link(prev)}>; rel="prev"`);
  if (next) links.push(`<${link(next)}>; rel="next"`);
  links.push(`<${link(1)}>; rel="first"`);
  if (totalPages !== null) links.push(`<${link(totalPages)}>; rel="last"`);
  return {
    ...(totalPages !== null ? { 'X-Total': String(total), 'X-Total-Pages': String(totalPages) } : {}),
    'X-Page': String(page),
    'X-Per-Page': String(perPage),
    'X-Next-Page': next ? String(next) : '',
    'X-Prev-Page': prev ? String(prev) : '',
    Link: links.join(', '),
  };
}
