/**
 * The lane (src/db/database.ts) of a GraphQL request: `read` for a query or subscription, `write` for a mutation.
 * Decided before the request authenticates, so a write never waits behind reads even for its token. Each server's
 * function remembers the documents it parsed, those no longer than GitLab's largest accepted query.
 */
import { getOperationAST, parse } from 'graphql';
import type { Lane } from '../db/database.js';

const MAX_REMEMBERED_QUERY = 10_000;
const MAX_REMEMBERED = 500;

export function graphqlLanes(): (query: unknown, operationName: unknown) => Lane {
  const remembered = new Map<string, Lane>();
  return (query, operationName) => {
    if (typeof query !== 'string') return 'write';
    const name = typeof operationName === 'string' ? operationName : undefined;
    const key = `${name ?? ''}\n${query}`;
    const known = remembered.get(key);
    if (known) return known;
    let lane: Lane;
    try {
      lane = getOperationAST(parse(query), name)?.operation === 'mutation' ? 'write' : 'read';
    } catch {
      lane = 'read'; // a document that does not parse is refused before anything runs
    }
    if (query.length <= MAX_REMEMBERED_QUERY) {
      if (remembered.size >= MAX_REMEMBERED) remembered.clear();
      remembered.set(key, lane);
    }
    return lane;
  };
}
