/**
 * Connections shaped like GitLab's (`nodes`, `pageInfo`, `count`). Cursors encode offsets, so REST's
 * `page`/`per_page` map onto `first`/`after` in one place (src/rest/pagination.ts); a list ordered by columns that
 * end with a unique key may also take keyset cursors (the last row's values of those columns), which seek rather
 * than skip: REST's `pagination=keyset` and GraphQL's `endCursor` of such lists.
 */
import { invalidArgument } from '../errors.js';

export const MAX_PAGE_SIZE = 100;
/**
 * A connection asked without `first` answers 20. GitLab's answers 100 (graphql-ruby's `default_max_page_size`), but
 * the node bound (cost.ts) would then refuse nested unpaged queries gitlab.com answers (a pipeline's stages, groups
 * and jobs: 100³) until it counts lists already in memory as free. REST always asks for its `per_page`.
 */
export const DEFAULT_PAGE_SIZE = 20;

export interface PageArgs {
  first?: number | null;
  after?: string | null;
  /** Relay's backward pagination, as GitLab's connections take it: the last `last` nodes (before `before`). */
  last?: number | null;
  before?: string | null;
}

export interface Page {
  skip: number;
  take: number;
  /** With a keyset cursor: a Prisma filter for the rows after (or before) it, to AND into the list's own. */
  seek?: Record<string, unknown>;
  /**
   * A keyset-capable list's Prisma order for this page, which its fetch must use: the list's own, or reversed when
   * the page is read backwards (`last`), the connection turning the rows back.
   */
  orderBy?: Record<string, 'asc' | 'desc'>[];
}

/** A keyset-capable list's order: Prisma fields and directions, the last one a unique key. */
export type KeysetOrder = readonly (readonly [field: string, direction: 'asc' | 'desc'])[];

export function encodeCursor(offset: number): string {
  return Buffer.from(`offset:${offset}`).toString('base64url');
}

const KEYSET_PREFIX = 'keyset:';

/** A keyset cursor: the values of the order's columns in the row it follows (dates kept as dates). */
export function encodeKeysetCursor(values: readonly unknown[]): string {
  const json = JSON.stringify(values.map((v) => (v instanceof Date ? { date: v.toISOString() } : v)));
  return Buffer.from(`${KEYSET_PREFIX}${json}`).toString('base64url');
}

function decodeKeysetCursor(text: string, order: KeysetOrder | undefined): unknown[] {
  let values: unknown;
  try {
    values = JSON.parse(text.slice(KEYSET_PREFIX.length));
  } catch {
    throw invalidArgument('after');
  }
  if (!order || !Array.isArray(values) || values.length !== order.length) throw invalidArgument('after');
  return values.map((v) => {
    if (v && typeof v === 'object' && typeof (v as { date?: unknown }).date === 'string') {
      const date = new Date((v as { date: string }).date);
      if (Number.isNaN(date.getTime())) throw invalidArgument('after');
      return date;
    }
    if (typeof v !== 'string' && typeof v !== 'number') throw invalidArgument('after');
    return v;
  });
}

/** Rows after (or before) `values` in `order`: (a > x) or (a = x and b > y) …, with `<` for descending columns. */
function seek(order: KeysetOrder, values: unknown[], side: 'after' | 'before'): Record<string, unknown> {
  return {
    OR: order.map(([field, direction], i) => ({
      ...Object.fromEntries(order.slice(0, i).map(([f], j) => [f, values[j]])),
      [field]: { [(direction === 'asc') === (side === 'after') ? 'gt' : 'lt']: values[i] },
    })),
  };
}

type Cursor = { kind: 'offset'; offset: number } | { kind: 'keyset'; values: unknown[] };

function readCursor(cursor: string, name: 'after' | 'before', order: KeysetOrder | undefined): Cursor {
  const text = Buffer.from(cursor, 'base64url').toString();
  if (text.startsWith(KEYSET_PREFIX)) {
    try {
      return { kind: 'keyset', values: decodeKeysetCursor(text, order) };
    } catch {
      throw invalidArgument(name);
    }
  }
  const match = /^offset:(\d{1,9})$/.exec(text);
  if (!match) throw invalidArgument(name);
  return { kind: 'offset', offset: Number(match[1]) };
}

function pageSize(value: number | null | undefined, name: 'first' | 'last'): number | undefined {
  if (value == null) return undefined;
  if (value < 0) throw invalidArgument(name);
  return Math.min(value, MAX_PAGE_SIZE);
}

export interface Edge<T> {
  cursor: string;
  node: T;
}

export interface Connection<T> {
  readonly nodes: Promise<T[]>;
  /** Relay's edges (relay-connections.ts): each node with its cursor, the cursors `pageInfo` gives for the first and last. */
  readonly edges: Promise<Edge<T>[]>;
  readonly count: Promise<number>;
  readonly pageInfo: Promise<{ hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null }>;
}

/** The rows of a page, where they start in the list (offset pages) and whether there are more either side. */
interface Loaded<T> {
  rows: T[];
  start: number;
  hasNextPage: boolean;
  hasPreviousPage: boolean;
}

/** A connection's arguments, read and checked: page sizes capped, cursors decoded. */
interface PageRequest {
  first: number | undefined;
  last: number | undefined;
  after: Cursor | null;
  before: Cursor | null;
}

function readPage(args: PageArgs, keyset: KeysetOrder | undefined): PageRequest {
  return {
    first: pageSize(args.first, 'first'),
    last: pageSize(args.last, 'last'),
    after: args.after ? readCursor(args.after, 'after', keyset) : null,
    before: args.before ? readCursor(args.before, 'before', keyset) : null,
  };
}

/**
 * Reads the page Relay's arguments name (GitLab's connections: `first`/`after`, `last`/`before`, both at once):
 * the nodes after `after` and before `before`, then the first `first` of them, then the last `last` of those. A
 * keyset-capable list read with keyset cursors (or backwards from its end) seeks and, for `last`, reads in reverse;
 * otherwise the page is an offset window, `last` without `before` costing the list's count.
 */
async function loadPage<T>(request: PageRequest, fetch: (page: Page) => Promise<T[]>, count: () => Promise<number>, keyset: KeysetOrder | undefined): Promise<Loaded<T>> {
  const { first, last, after, before } = request;
  const take = first ?? (last === undefined ? DEFAULT_PAGE_SIZE : undefined);
  const orderBy = keyset?.map(([field, direction]) => ({ [field]: direction }));
  const get = (page: Page) => (page.take <= 0 ? Promise.resolve([] as T[]) : Promise.resolve(fetch(page)));

  if (keyset && after?.kind !== 'offset' && before?.kind !== 'offset' && (after || before || last !== undefined)) {
    const filters: Record<string, unknown>[] = [];
    if (after?.kind === 'keyset') filters.push(seek(keyset, after.values, 'after'));
    if (before?.kind === 'keyset') filters.push(seek(keyset, before.values, 'before'));
    const where = filters.length === 0 ? undefined : filters.length === 1 ? filters[0] : { AND: filters };
    if (last === undefined || take !== undefined) {
      const forward = await get({ skip: 0, take: (take ?? 0) + 1, seek: where, orderBy });
      const rows = forward.slice(0, take);
      if (last === undefined) return { rows, start: 0, hasNextPage: forward.length > rows.length, hasPreviousPage: !!after };
      return { rows: rows.slice(Math.max(0, rows.length - last)), start: 0, hasNextPage: forward.length > rows.length, hasPreviousPage: rows.length > last || !!after };
    }
    const reversed = keyset.map(([field, direction]) => ({ [field]: direction === 'asc' ? ('desc' as const) : ('asc' as const) }));
    const backward = await get({ skip: 0, take: last + 1, seek: where, orderBy: reversed });
    return { rows: backward.slice(0, last).reverse(), start: 0, hasNextPage: !!before, hasPreviousPage: backward.length > last };
  }
  // An offset window [lower, upper) of the list; a keyset cursor beside an offset one is refused.
  if (after?.kind === 'keyset') throw invalidArgument('before');
  if (before?.kind === 'keyset') throw invalidArgument('after');
  const lower = after ? after.offset + 1 : 0;
  const upper = before ? before.offset : undefined;
  if (last === undefined) {
    const size = Math.max(0, Math.min(take!, (upper ?? Infinity) - lower));
    const probe = upper === undefined || lower + size < upper ? 1 : 0;
    const rows = await get({ skip: lower, take: size + probe, orderBy });
    return { rows: rows.slice(0, size), start: lower, hasNextPage: rows.length > size, hasPreviousPage: lower > 0 };
  }
  let end = take !== undefined ? Math.min(lower + take, upper ?? Infinity) : upper;
  if (end === undefined || end === Infinity) end = Math.min(await count(), upper ?? Infinity);
  const start = Math.max(lower, end - last);
  const rows = await get({ skip: start, take: Math.max(0, end - start), orderBy });
  return { rows, start, hasNextPage: before !== null, hasPreviousPage: start > 0 };
}

/**
 * A lazy connection: its fields are getters, so GraphQL runs only the queries of the fields a query selects
 * (a page without `count` costs one query, `count` alone one). `fetch` must order by a unique key; a list that
 * names its order (`keyset`) also takes keyset cursors, hands `fetch` their `seek` filter and its `orderBy` (which
 * the fetch must use), and gives keyset cursors.
 */
export function connection<T>(
  args: PageArgs,
  fetch: (page: Page) => Promise<T[]>,
  count: () => Promise<number>,
  keyset?: KeysetOrder,
): Connection<T> {
  // Read at once, so a bad cursor is refused even where only `count` is asked for.
  const request = readPage(args, keyset);
  let total: Promise<number> | undefined;
  const counted = () => (total ??= Promise.resolve(count()));
  let loaded: Promise<Loaded<T>> | undefined;
  const load = () => (loaded ??= loadPage(request, fetch, counted, keyset));
  const cursorAt = (page: Loaded<T>, index: number) =>
    keyset ? encodeKeysetCursor(keyset.map(([field]) => (page.rows[index] as Record<string, unknown>)[field])) : encodeCursor(page.start + index);
  return {
    get nodes() {
      return load().then((page) => page.rows);
    },
    get edges() {
      return load().then((page) => page.rows.map((node, i) => ({ cursor: cursorAt(page, i), node })));
    },
    get count() {
      return counted();
    },
    get pageInfo() {
      return load().then((page) => ({
        hasNextPage: page.hasNextPage,
        hasPreviousPage: page.hasPreviousPage,
        startCursor: page.rows.length ? cursorAt(page, 0) : null,
        endCursor: page.rows.length ? cursorAt(page, page.rows.length - 1) : null,
      }));
    },
  };
}

/** A list already in memory, whole, as a connection of one page (a stage's jobs, a pipeline's stages). */
export function wholeConnection<T>(all: readonly T[]): Connection<T> {
  const nodes = [...all];
  return {
    nodes: Promise.resolve(nodes),
    edges: Promise.resolve(nodes.map((node, i) => ({ cursor: encodeCursor(i), node }))),
    count: Promise.resolve(nodes.length),
    pageInfo: Promise.resolve({
      hasNextPage: false,
      hasPreviousPage: false,
      startCursor: nodes.length ? encodeCursor(0) : null,
      endCursor: nodes.length ? encodeCursor(nodes.length - 1) : null,
    }),
  };
}

/** A slice of a list already in memory (bounded by its nature: a job's artifacts, a report's suites), as a connection. */
export function listConnection<T>(args: PageArgs, all: readonly T[]): Connection<T> {
  return connection(args, async ({ skip, take }) => all.slice(skip, skip + take), async () => all.length);
}
