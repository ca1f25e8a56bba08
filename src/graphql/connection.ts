/**
 * Connections shaped like GitLab's (`nodes`, `pageInfo`, `count`). Cursors encode offsets, so REST's
 * `page`/`per_page` map onto `first`/`after` in one place (src/rest/pagination.ts); a list ordered by columns that
 * end with a unique key may also take keyset cursors (the last row's values of those columns), which seek rather
 * than skip: REST's `pagination=keyset` and GraphQL's `endCursor` of such lists.
 */
import { invalidArgument } from '../errors.js';

export const MAX_PAGE_SIZE = 100;
/**
 * A connection asked without `first` answers a full page, as GitLab's (graphql-ruby's `default_max_page_size 100`
 * with no `default_page_size`: the maximum stands in). REST always asks for its `per_page` (rest/pagination.ts).
 */
export const DEFAULT_PAGE_SIZE = MAX_PAGE_SIZE;

export interface PageArgs {
  first?: number | null;
  after?: string | null;
}

export interface Page {
  skip: number;
  take: number;
  /** With a keyset cursor: a Prisma filter for the rows after it, to AND into the list's own. */
  seek?: Record<string, unknown>;
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

/** Rows after `values` in `order`: (a > x) or (a = x and b > y) …, with `<` for descending columns. */
function seekAfter(order: KeysetOrder, values: unknown[]): Record<string, unknown> {
  return {
    OR: order.map(([field, direction], i) => ({
      ...Object.fromEntries(order.slice(0, i).map(([f], j) => [f, values[j]])),
      [field]: { [direction === 'asc' ? 'gt' : 'lt']: values[i] },
    })),
  };
}

export function toPage(args: PageArgs, order?: KeysetOrder): Page {
  if (args.first != null && args.first < 0) throw invalidArgument('first');
  const take = Math.min(args.first ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  if (!args.after) return { skip: 0, take };
  const text = Buffer.from(args.after, 'base64url').toString();
  if (text.startsWith(KEYSET_PREFIX)) {
    const values = decodeKeysetCursor(text, order);
    return { skip: 0, take, seek: order && seekAfter(order, values) };
  }
  const match = /^offset:(\d{1,9})$/.exec(text);
  if (!match) throw invalidArgument('after');
  return { skip: Number(match[1]) + 1, take };
}

export interface Edge<T> {
  cursor: string;
  node: T;
}

export interface Connection<T> {
  readonly nodes: Promise<T[]>;
  /** Relay's edges (edges.ts): each node with its cursor, the cursors `pageInfo` gives for the first and last. */
  readonly edges: Promise<Edge<T>[]>;
  readonly count: Promise<number>;
  readonly pageInfo: Promise<{ hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null }>;
}

/**
 * A lazy connection: its fields are getters, so GraphQL runs only the queries of the fields a query selects
 * (a page without `count` costs one query, `count` alone one). `fetch` must order by a unique key; a list that
 * names its order (`keyset`) also takes keyset cursors, hands `fetch` their `seek` filter and gives keyset cursors.
 */
export function connection<T>(
  args: PageArgs,
  fetch: (page: Page) => Promise<T[]>,
  count: () => Promise<number>,
  keyset?: KeysetOrder,
): Connection<T> {
  const page = toPage(args, keyset);
  let rows: Promise<T[]> | undefined;
  // Promise.resolve: Prisma's lazy PrismaPromise is a thenable, not a Promise, and not every executor takes thenables.
  const load = () => (rows ??= page.take === 0 ? Promise.resolve([]) : Promise.resolve(fetch({ ...page, take: page.take + 1 })));
  const cursorAt = (all: T[], index: number) =>
    keyset ? encodeKeysetCursor(keyset.map(([field]) => (all[index] as Record<string, unknown>)[field])) : encodeCursor(page.skip + index);
  let total: Promise<number> | undefined;
  return {
    get nodes() {
      return load().then((all) => all.slice(0, page.take));
    },
    get edges() {
      return load().then((all) => all.slice(0, page.take).map((node, i) => ({ cursor: cursorAt(all, i), node })));
    },
    get count() {
      return (total ??= Promise.resolve(count()));
    },
    get pageInfo() {
      return load().then((all) => {
        const shown = Math.min(all.length, page.take);
        return {
          hasNextPage: all.length > page.take,
          hasPreviousPage: page.skip > 0 || page.seek !== undefined,
          startCursor: shown ? cursorAt(all, 0) : null,
          endCursor: shown ? cursorAt(all, shown - 1) : null,
        };
      });
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
