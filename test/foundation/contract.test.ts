import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { describe, expect, it } from 'vitest';
import { isEnumType, isInputObjectType, isObjectType } from 'graphql';
import { buildSchema, GRAPHQL_DIR } from '../../src/graphql/schema.js';
import { compileOperations } from '../../src/rest/compile.js';
import { prepareRoutes } from '../../src/rest/adapter.js';
import { restRoutes } from '../../src/rest/routes/index.js';
import { pendingSchemaChanges } from '../../src/db/engine.js';

const SRC = new URL('../../src/', import.meta.url).pathname;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

describe('contract', () => {
  const schema = buildSchema();

  it('compiles every REST operation and binds every route to one', () => {
    const operations = compileOperations(schema, `${GRAPHQL_DIR}rest`);
    const routes = prepareRoutes(restRoutes, operations);
    expect(routes.length).toBe(restRoutes.length);
    const used = new Set(restRoutes.map((r) => r.operation));
    expect([...operations.keys()].filter((name) => !used.has(name))).toEqual([]);
  });

  it('refuses a route whose operation does not exist', () => {
    const operations = compileOperations(schema, `${GRAPHQL_DIR}rest`);
    expect(() => prepareRoutes([{ method: 'GET', path: '/nope', operation: 'RestNothing' }], operations)).toThrow(/does not exist/);
  });

  it('refuses two routes with the same method and path', () => {
    const operations = compileOperations(schema, `${GRAPHQL_DIR}rest`);
    const route = restRoutes[0];
    expect(() => prepareRoutes([route, route], operations)).toThrow(/declared twice/);
  });

  it('describes every type, field, argument and enum value of the schema', () => {
    const missing: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__') || ['String', 'Int', 'Float', 'Boolean', 'ID'].includes(type.name)) continue;
      if (!type.description) missing.push(type.name);
      if (isObjectType(type) || isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) {
          if (!field.description) missing.push(`${type.name}.${field.name}`);
          for (const arg of 'args' in field ? field.args : []) if (!arg.description) missing.push(`${type.name}.${field.name}(${arg.name})`);
        }
      }
      if (isEnumType(type)) for (const value of type.getValues()) if (!value.description) missing.push(`${type.name}.${value.name}`);
    }
    expect(missing).toEqual([]);
  });

  it('keeps Prisma inside src/db, services, loaders, the job and event infrastructure and the composition root', () => {
    const allowed = (path: string) =>
      path.startsWith('db/') || path.startsWith('generated/') || /(^|\/)(service|loaders)\.ts$/.test(path) || path === 'jobs/queue.ts' || path === 'events/bus.ts' || path === 'server.ts';
    const offenders = files(SRC)
      .map((path) => relative(SRC, path))
      .filter((path) => path.endsWith('.ts') && !allowed(path))
      .filter((path) => /from ['"][^'"]*(generated\/prisma|@prisma\/client|db\/database)[^'"]*['"]/.test(readFileSync(join(SRC, path), 'utf8').replace(/^import type .*$/gm, '')));
    expect(offenders).toEqual([]);
  });

  it('has committed migrations that match schema.prisma', async () => {
    const scratch = await PGlite.create();
    try {
      expect(await pendingSchemaChanges(new PrismaPGlite(scratch))).toBe('');
    } finally {
      await scratch.close();
    }
  });
});
