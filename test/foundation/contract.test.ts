import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { describe, expect, it } from 'vitest';
import { isEnumType, isInputObjectType, isObjectType } from 'graphql';
import { buildSchema, GRAPHQL_DIR, REST_OPERATIONS_DIR, SHARED_OPERATIONS, SHARED_SCHEMA } from '../../src/graphql/schema.js';
import { prepareRoutes } from '../../src/rest/adapter.js';
import { declaredRoutes, restOperations, restRoutes } from '../../src/rest/routes.js';
import { pendingSchemaChanges } from '../../src/db/engine.js';
import { modules } from '../../src/modules/index.js';
import { abilities } from '../../src/auth/policy.js';

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
    const operations = restOperations(schema);
    const routes = restRoutes(schema);
    expect(routes.length).toBe(declaredRoutes.length);
    const used = new Set(declaredRoutes.map((r) => r.operation));
    expect([...operations.keys()].filter((name) => !used.has(name))).toEqual([]);
    for (const op of operations.values()) expect(op.compiled, op.name).not.toThrow();
  });

  it('refuses a route whose operation does not exist', () => {
    expect(() => prepareRoutes([{ method: 'GET', path: '/nope', operation: 'RestNothing' }], restOperations(schema))).toThrow(/does not exist/);
  });

  it('refuses two routes with the same method and path', () => {
    const route = declaredRoutes[0];
    expect(() => prepareRoutes([route, route], restOperations(schema))).toThrow(/declared twice/);
  });

  it('orders routes by precedence, static segments before parameters, whatever order the modules list them in', () => {
    const operations = restOperations(schema);
    const forward = prepareRoutes(declaredRoutes, operations).map((r) => `${r.method} ${r.path}`);
    const backward = prepareRoutes([...declaredRoutes].reverse(), operations).map((r) => `${r.method} ${r.path}`);
    expect(backward).toEqual(forward);
    expect(forward.indexOf('GET /personal_access_tokens/self')).toBeLessThan(forward.indexOf('GET /personal_access_tokens/:id'));
  });

  it('has complete modules: one name in every layer, files that exist and belong to one module, services built from earlier ones', () => {
    const problems: string[] = [];
    const seen = new Set<string>();
    const ownedSchema = new Map<string, string>();
    const ownedOperations = new Map<string, string>();
    for (const m of modules) {
      const folder = join(SRC, 'modules', m.name);
      for (const file of ['index.ts', 'service.ts', 'resolvers.ts']) if (!existsSync(join(folder, file))) problems.push(`${m.name}: no ${file}`);
      if (m.routes.length && !existsSync(join(folder, 'routes.ts'))) problems.push(`${m.name}: routes outside routes.ts`);
      if (!m.schema.includes(`${m.name}.graphql`)) problems.push(`${m.name}: no graphql/${m.name}.graphql`);
      if (m.routes.length && !m.operations.includes(`${m.name}.graphql`)) problems.push(`${m.name}: no graphql/rest/${m.name}.graphql`);
      for (const used of m.uses) if (!seen.has(used)) problems.push(`${m.name} uses ${used}, which is not listed before it`);
      for (const f of m.schema) ownedSchema.has(f) ? problems.push(`${f} owned twice`) : ownedSchema.set(f, m.name);
      for (const f of m.operations) ownedOperations.has(f) ? problems.push(`rest/${f} owned twice`) : ownedOperations.set(f, m.name);
      const operations = restOperations(schema);
      for (const route of m.routes) {
        const op = operations.get(route.operation);
        if (!op) continue;
        // A route made by a module it uses (the notes module's noteRoutes) runs that module's operations.
        const files = [...m.operations, ...modules.filter((u) => (m.uses as readonly string[]).includes(u.name)).flatMap((u) => u.operations)];
        const file = files.find((f) => readFileSync(join(REST_OPERATIONS_DIR, f), 'utf8').includes(` ${route.operation}`));
        if (!file) problems.push(`${m.name}: ${route.operation} is not in its own operation files or those of a module it uses`);
      }
      seen.add(m.name);
    }
    const sdl = readdirSync(GRAPHQL_DIR).filter((f) => f.endsWith('.graphql'));
    for (const f of sdl) if (!ownedSchema.has(f) && !SHARED_SCHEMA.includes(f)) problems.push(`graphql/${f} belongs to no module`);
    for (const f of readdirSync(REST_OPERATIONS_DIR)) if (!ownedOperations.has(f) && !SHARED_OPERATIONS.includes(f)) problems.push(`graphql/rest/${f} belongs to no module`);
    for (const d of readdirSync(join(SRC, 'modules'))) {
      if (statSync(join(SRC, 'modules', d)).isDirectory() && !modules.some((m) => m.name === d)) problems.push(`src/modules/${d} is not listed`);
    }
    expect(problems).toEqual([]);
  });

  it('asks abilities: no admin flag, access level or REST parameter name outside src/auth and src/rest', () => {
    const offenders: string[] = [];
    const rules: [RegExp, string][] = [
      [/viewer\??\.admin\b/, 'reads the admin flag'],
      [/\bAccessLevel\.[A-Z_]+/, 'names an access level'],
      [/[<>]=?\s*(10|15|20|30|40|50)\b/, 'compares with an access level'],
      [/['"`][a-z]+_[a-z_]+ (is missing|is invalid|does not have a valid value)/, 'words an error in REST parameter names'],
      [/\b(invalidParams|requireWriteScope)\(/, 'uses a REST-only or removed check'],
      [/mode:\s*'insensitive'/, "passes user input to ILIKE unescaped (use src/db/text.ts)"],
    ];
    for (const path of files(SRC).map((p) => relative(SRC, p))) {
      if (!path.endsWith('.ts') || path.startsWith('auth/') || /^modules\/[a-z_]+\/policy\.ts$/.test(path) || path.startsWith('rest/') || path.startsWith('generated/') || path === 'errors.ts' || path === 'db/text.ts' || path.startsWith('http/')) continue;
      const text = readFileSync(join(SRC, path), 'utf8');
      for (const [pattern, what] of rules) if (pattern.test(text)) offenders.push(`${path} ${what}`);
    }
    expect(offenders).toEqual([]);
  });

  it('keeps each subject\'s abilities in its module\'s policy.ts: auth names no domain, every ability is defined once', () => {
    const problems: string[] = [];
    for (const path of files(join(SRC, 'auth'))) {
      if (/from '\.\.\/modules\//.test(readFileSync(path, 'utf8'))) problems.push(`${relative(SRC, path)} imports a module`);
    }
    const registered = new Set(abilities());
    const defined: string[] = ['admin_all_resources', 'create_group'];
    for (const m of modules) {
      const file = join(SRC, 'modules', m.name, 'policy.ts');
      if (existsSync(file) !== !!m.policy) problems.push(`${m.name}: policy.ts and the manifest's policy disagree`);
      defined.push(...Object.keys(m.policy ?? {}));
    }
    expect(problems).toEqual([]);
    // Defined once each (registerPolicy refuses a second definition), and nothing registered comes from elsewhere.
    expect(new Set(defined).size).toBe(defined.length);
    expect([...registered].sort()).toEqual([...defined].sort());
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
    // initdb, every migration and the schema engine's diff, in WebAssembly: seconds alone, far more on a busy machine.
  }, 120_000);

  it('writes migrations the schema engine can split on PostgreSQL: no semicolon inside a comment', () => {
    // Prisma's engine splits a script at every `;` on PostgreSQL (PGlite takes it whole), comments included.
    const dir = join(SRC, '..', 'prisma', 'migrations');
    const found = readdirSync(dir)
      .filter((name) => existsSync(join(dir, name, 'migration.sql')))
      .flatMap((name) => readFileSync(join(dir, name, 'migration.sql'), 'utf8').split('\n').map((line, i) => ({ name, line, i })))
      .filter(({ line }) => /--.*;/.test(line))
      .map(({ name, i }) => `${name}:${i + 1}`);
    expect(found).toEqual([]);
  });
});
