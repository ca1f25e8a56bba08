/**
 * The one context factory: Apollo (`/api/graphql`), the REST adapter and graphql-ws subscriptions all call
 * `createContext(app, viewer)`, which gives each request fresh DataLoaders and lazily built services.
 */
import type { Viewer } from './auth/viewer.js';
import type { Config } from './config.js';
import type { PrismaClient } from './db/database.js';
import type { EventBus } from './events/bus.js';
import type { JobQueue } from './jobs/queue.js';
import type { Logger } from './logger.js';
import { UsersService } from './modules/users/service.js';
import { createUserLoaders } from './modules/users/loaders.js';
import { TokensService } from './modules/tokens/service.js';
import { NamespacesService } from './modules/namespaces/service.js';
import { createNamespaceLoaders } from './modules/namespaces/loaders.js';
import { GroupsService } from './modules/namespaces/groups.js';
import { ProjectsService } from './modules/projects/service.js';
import { createProjectLoaders } from './modules/projects/loaders.js';
import { MembersService } from './modules/members/service.js';
import { createMemberLoaders } from './modules/members/loaders.js';
import { ActivityService } from './modules/activity/service.js';
import { createActivityLoaders } from './modules/activity/loaders.js';

/** Long-lived parts shared by every request. */
export interface App {
  db: PrismaClient;
  config: Config;
  bus: EventBus;
  jobs: JobQueue;
  logger: Logger;
}

export interface Loaders {
  users: ReturnType<typeof createUserLoaders>;
  namespaces: ReturnType<typeof createNamespaceLoaders>;
  projects: ReturnType<typeof createProjectLoaders>;
  members: ReturnType<typeof createMemberLoaders>;
  activity: ReturnType<typeof createActivityLoaders>;
}

export interface Services {
  users: UsersService;
  tokens: TokensService;
  namespaces: NamespacesService;
  groups: GroupsService;
  projects: ProjectsService;
  members: MembersService;
  activity: ActivityService;
}

/** What every service is built with. */
export interface ServiceDeps {
  db: PrismaClient;
  viewer: Viewer | null;
  loaders: Loaders;
  services: Services;
  app: App;
  /** A new context for the same viewer: fresh loaders, for long-lived work such as subscriptions. */
  renew: () => Context;
}

export interface Context {
  viewer: Viewer | null;
  loaders: Loaders;
  services: Services;
  config: Config;
}

type ServiceClasses = { [K in keyof Services]: new (deps: ServiceDeps) => Services[K] };

const SERVICE_CLASSES: ServiceClasses = {
  users: UsersService,
  tokens: TokensService,
  namespaces: NamespacesService,
  groups: GroupsService,
  projects: ProjectsService,
  members: MembersService,
  activity: ActivityService,
};

export function createContext(app: App, viewer: Viewer | null): Context {
  const namespaces = createNamespaceLoaders(app.db);
  const users = createUserLoaders(app.db);
  const loaders: Loaders = {
    users,
    namespaces,
    projects: createProjectLoaders(app.db, { namespaces, users }),
    members: createMemberLoaders(app.db, viewer),
    activity: createActivityLoaders(app.db),
  };
  const built: Partial<Services> = {};
  const services = {} as Services;
  const deps: ServiceDeps = { db: app.db, viewer, loaders, services, app, renew: () => createContext(app, viewer) };
  for (const name of Object.keys(SERVICE_CLASSES) as (keyof Services)[]) {
    Object.defineProperty(services, name, {
      enumerable: true,
      get: () => (built[name] ??= new SERVICE_CLASSES[name](deps) as never),
    });
  }
  return { viewer, loaders, services, config: app.config };
}
