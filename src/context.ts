/**
 * The one context factory: Apollo (`/api/graphql`), the REST adapter and graphql-ws subscriptions all call
 * `createContext(app, viewer, { lane, deadline })`. It loops over the module list: each module's loaders and
 * service are built on first use in the request, the service with exactly the sibling services its manifest `uses`.
 */
import { HeldAbilities } from './auth/held-access.js';
import { Access } from './auth/policy.js';
import type { Viewer } from './auth/viewer.js';
import type { Config } from './config.js';
import type { Lane, PrismaClient } from './db/database.js';
import type { EventBus } from './events/bus.js';
import type { JobQueue } from './jobs/queue.js';
import type { Logger } from './logger.js';
import { modules } from './modules/index.js';
import type { Loaders, ServiceBase, Services } from './modules/module.js';

export type { Loaders, Services } from './modules/module.js';

/** Long-lived parts shared by every request. */
export interface App {
  /** The write lane's client: mutations and background work. */
  db: PrismaClient;
  /** The read lane's client (a pool of its own on PostgreSQL): read requests. */
  readDb: PrismaClient;
  config: Config;
  bus: EventBus;
  /** Memberships held by subscriptions, by user, refreshed when the bus announces a change. */
  abilities: HeldAbilities;
  jobs: JobQueue;
  logger: Logger;
}

/** The App from its parts; the held abilities read memberships afresh, with loaders of their own, when out of date. */
export function createApp(parts: Omit<App, 'abilities'>): App {
  const abilities = new HeldAbilities(parts.bus, (userId) => createContext(app, null, { lane: 'read' }).loaders.members.membershipsOf.load(userId));
  const app: App = { ...parts, abilities };
  return app;
}

export interface Context {
  viewer: Viewer | null;
  /** The policy for this viewer (abilities, list filters), shared by every service of the request. */
  access: Access;
  loaders: Loaders;
  services: Services;
  config: Config;
  /** When, in ms since the epoch, fields stop starting (src/graphql/deadline.ts); Infinity for none. */
  deadline: number;
}

/** What the caller knows of the request: the lane whose connections it uses (write unless said), and its deadline. */
export interface RequestBounds {
  lane?: Lane;
  deadline?: number;
}

/** An object whose keys are built by `build` on first read, then kept. */
function lazily<T extends object>(names: readonly string[], build: (name: string) => unknown): T {
  const target = {} as T;
  for (const name of names) {
    Object.defineProperty(target, name, {
      enumerable: true,
      configurable: true,
      get() {
        const value = build(name);
        Object.defineProperty(target, name, { value, enumerable: true });
        return value;
      },
    });
  }
  return target;
}

const byName = new Map(modules.map((m) => [m.name as string, m]));
const names = modules.map((m) => m.name as string);
const withLoaders = modules.filter((m) => m.loaders).map((m) => m.name as string);

export function createContext(app: App, viewer: Viewer | null, request: RequestBounds = {}): Context {
  const db = request.lane === 'read' ? app.readDb : app.db;
  const loaders: Loaders = lazily<Loaders>(withLoaders, (name) => byName.get(name)?.loaders?.(db, loaders));
  const access = new Access(viewer, {
    memberships: (userId) => loaders.members.membershipsOf.load(userId),
    ancestors: (userId) => loaders.members.ancestorsOf.load(userId),
  });
  const base: ServiceBase = { db, viewer, access, loaders, app };
  const services: Services = lazily<Services>(names, (name) => {
    const module = byName.get(name);
    if (!module) throw new Error(`no module ${name}`);
    const uses = Object.fromEntries(module.uses.map((used) => [used, services[used]]));
    return module.service(base, uses as never);
  });
  return { viewer, access, loaders, services, config: app.config, deadline: request.deadline ?? Infinity };
}
