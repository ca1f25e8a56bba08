/**
 * Offset-backed connections shaped like GitLab's (`nodes`, `pageInfo`, `count`). Cursors encode offsets,
 * so REST's `page`/`per_page` map onto `first`/`after` in one place (src/rest/pagination.ts).
 */
import { invalidArgument } from '../errors.js';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export interface PageArgs {
  first?: number | null;
  after?: string | null;
}

export interface Page {
  skip: number;
  take: number;
}

export function encodeCursor(offset: number): string {
  return Buffer.from(`offset:${offset}`).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const match = /^offset:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw invalidArgument('after');
  return Number(match[1]);
}

export function toPage(args: PageArgs): Page {
  if (args.first != null && args.first < 0) throw invalidArgument('first');
  const take = Math.min(args.first ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const skip = args.after ? decodeCursor(args.after) + 1 : 0;
  return { skip, take };
}

export interface Connection<T> {
  readonly nodes: Promise<T[]>;
  readonly count: Promise<number>;
  readonly pageInfo: Promise<{ hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null }>;
}

/**
 * A lazy connection: its fields are getters, so GraphQL runs only the queries of the fields a query selects
 * (a page without `count` costs one query, `count` alone one). `fetch` must order by a unique key.
 */
export function connection<T>(
  args: PageArgs,
  fetch: (page: Page) => Promise<T[]>,
  count: () => Promise<number>,
): Connection<T> {
  const page = toPage(args);
  let rows: Promise<T[]> | undefined;
  // Promise.resolve: Prisma's lazy PrismaPromise is a thenable, not a Promise, and not every executor takes thenables.
  const load = () => (rows ??= page.take === 0 ? Promise.resolve([]) : Promise.resolve(fetch({ skip: page.skip, take: page.take + 1 })));
  let total: Promise<number> | undefined;
  return {
    get nodes() {
      return load().then((all) => all.slice(0, page.take));
    },
    get count() {
      return (total ??= Promise.resolve(count()));
    },
    get pageInfo() {
      return load().then((all) => {
        const shown = Math.min(all.length, page.take);
        return {
          hasNextPage: all.length > page.take,
          hasPreviousPage: page.skip > 0,
          startCursor: shown ? encodeCursor(page.skip) : null,
          endCursor: shown ? encodeCursor(page.skip + shown - 1) : null,
        };
      });
    },
  };
}

