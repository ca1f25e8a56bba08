/**
 * The one context factory: Apollo (`/api/graphql`), the REST adapter and graphql-ws subscriptions all call
 * `createContext(app, viewer, { lane, deadline })`. It loops over the module list: each module's loaders and
 * service are built on first use in the request, the service with exactly the sibling services its manifest `uses`.
 */
import type { PackageStorage } from './modules/packages/storage.js';
import type { ArtifactStorage } from './ci/artifact-storage.js';
import type { RepositoryStorages } from './git/storages.js';
import type { UploadStorage } from './uploads/storage.js';
import { inboundScopeLoader } from './auth/job-tokens.js';
import { Access } from './auth/policy.js';
import { MembershipCache } from './auth/memberships.js';
import { ProjectSubjectCache } from './auth/project-subjects.js';
import { loadProjectSubject } from './modules/projects/loaders.js';
import { loadMemberships } from './modules/members/loaders.js';
import { loadSharedAccess } from './modules/sharing/loaders.js';
import type { Viewer } from './auth/viewer.js';
import type { Config } from './config.js';
import type { Lane, Prisma, PrismaClient, RawExecutor } from './db/database.js';
import type { Announcement, EventBus } from './events/bus.js';
import type { JobQueue } from './jobs/queue.js';
import type { Logger } from './logger.js';
import { modules } from './modules/index.js';
import type { Loaders, RestRequest, ServiceBase, Services } from './modules/module.js';

export type { Loaders, Services } from './modules/module.js';

/** Long-lived parts shared by every request. */
export interface App {
  /** The write lane's client: mutations and background work. */
  db: PrismaClient;
  /** The read lane's client (a pool of its own on PostgreSQL): read requests. */
  readDb: PrismaClient;
  config: Config;
  bus: EventBus;
  jobs: JobQueue;
  logger: Logger;
  /** Users' memberships, remembered across requests until the bus says they changed. */
  memberships: MembershipCache;
  /** What deciding access to a project reads, remembered for live subscriptions until the bus says it changed. */
  projectSubjects: ProjectSubjectCache;
  /** Where each project's bare Git repository lives (src/git/storages.ts). */
  repositories: RepositoryStorages;
  /** Where job artifacts live (src/ci/artifact-storage.ts). */
  artifacts: ArtifactStorage;
  /** Where package files live, content-addressed (src/modules/packages/storage.ts). */
  packages: PackageStorage;
  /** Where uploads (avatars) and request bodies' files live (src/uploads/storage.ts). */
  uploads: UploadStorage;
  /** Removes what the modules keep of a project beyond its cascading rows (each module's `projectTeardown`). */
  teardownProject: (projectId: number) => Promise<void>;
}

/**
 * The App from its parts: users' memberships (with the levels shares grant them) are remembered across requests,
 * loaded on the asking request's lane; projects' access subjects for live subscriptions, loaded on the read lane.
 */
export function createApp(parts: Omit<App, 'memberships' | 'projectSubjects' | 'teardownProject'>): App {
  const load = async (userIds: readonly number[], lane: Lane) => {
    const db = lane === 'read' ? parts.readDb : parts.db;
    const [own, shared] = await Promise.all([loadMemberships(db, userIds), loadSharedAccess(db, userIds)]);
    return new Map(userIds.map((id) => [id, { ...own.get(id)!, ...shared.get(id)! }]));
  };
  return {
    ...parts,
    memberships: new MembershipCache(parts.bus, load),
    projectSubjects: new ProjectSubjectCache(parts.bus, (projectId) => loadProjectSubject(parts.readDb, projectId)),
    // The composition root puts the modules' teardowns here (src/server.ts).
    teardownProject: async () => {},
  };
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
  /**
   * How a relay mutation reports a failure GitLab puts in its payload's `errors` (src/graphql/mutations.ts): there
   * (`payload`, GraphQL callers), or thrown (`throw`, the REST adapter, which answers the coded error's REST body).
   */
  mutationErrors: 'payload' | 'throw';
  /** The request is a REST route that allows CI job tokens (RestRoute.jobToken): every field it reads accepts one. */
  jobTokenRoute: boolean;
  /** Resolves once the events this request published have reached this replica's subscribers: await before answering. */
  settle(): Promise<void>;
}

/** What the caller knows of the request: the lane whose connections it uses (write unless said), and its deadline. */
export interface RequestBounds {
  lane?: Lane;
  deadline?: number;
  /** Context.mutationErrors; `payload` unless said. */
  mutationErrors?: 'payload' | 'throw';
  /** What a REST request tells its services (ServiceBase.rest). */
  rest?: RestRequest;
  /** Context.jobTokenRoute; false unless said. */
  jobTokenRoute?: boolean;
}

const BUILD = Symbol('build');
type Lazy = { [BUILD]: (name: string) => unknown };

/**
 * A factory of objects whose keys are built by the object's `build` on first read, then kept. The getters live
 * on one prototype made here, once: a request pays only for the keys it reads.
 */
function lazily<T extends object>(names: readonly string[]): (build: (name: string) => unknown) => T {
  const prototype = {};
  for (const name of names) {
    Object.defineProperty(prototype, name, {
      get(this: Lazy) {
        const value = this[BUILD](name);
        Object.defineProperty(this, name, { value, enumerable: true });
        return value;
      },
    });
  }
  return (build) => Object.assign(Object.create(prototype) as Lazy, { [BUILD]: build }) as unknown as T;
}

const byName = new Map(modules.map((m) => [m.name as string, m]));
const names = modules.map((m) => m.name as string);
const withLoaders = modules.filter((m) => m.loaders).map((m) => m.name as string);
const lazyLoaders = lazily<Loaders>(withLoaders);
const lazyServices = lazily<Services>(names);

export function createContext(app: App, viewer: Viewer | null, request: RequestBounds = {}): Context {
  const lane = request.lane ?? 'write';
  const db = lane === 'read' ? app.readDb : app.db;
  const loaders: Loaders = lazyLoaders((name) => byName.get(name)?.loaders?.(db, loaders));
  let jobScope: ReturnType<typeof inboundScopeLoader> | undefined;
  const access = new Access(viewer, {
    memberships: (userId) => app.memberships.of(userId, lane),
    ancestors: async (userId) => {
      const [own, shared] = await Promise.all([loaders.members.ancestorsOf.load(userId), loaders.sharing.ancestorsOf.load(userId)]);
      return shared.size ? new Set([...own, ...shared]) : own;
    },
    jobTokenReaches: (job, projectId) => (jobScope ??= inboundScopeLoader(db, job.projectId)).load(projectId),
  });
  const published: number[] = [];
  const publish = async (topic: string, payload: unknown, tx?: RawExecutor) => {
    published.push(await app.bus.publish(topic, payload, tx));
  };
  const announce = async <T>(messages: readonly Announcement[], run: (notify: Prisma.Sql) => Promise<T>, sent: (result: T) => boolean = () => true) => {
    const { notify, seqs } = app.bus.announcing(messages);
    const result = await run(notify);
    if (sent(result)) published.push(...seqs);
    return result;
  };
  const base: ServiceBase = { db, viewer, rest: request.rest, access, loaders, app, publish, announce };
  const services: Services = lazyServices((name) => {
    const module = byName.get(name);
    if (!module) throw new Error(`no module ${name}`);
    const uses = Object.fromEntries(module.uses.map((used) => [used, services[used]]));
    return module.service(base, uses as never);
  });
  const settle = () => app.bus.delivered(published);
  return { viewer, access, loaders, services, config: app.config, deadline: request.deadline ?? Infinity, mutationErrors: request.mutationErrors ?? 'payload', jobTokenRoute: request.jobTokenRoute ?? false, settle };
}
