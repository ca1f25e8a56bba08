/**
 * The shape of a domain module. Each `src/modules/<domain>/index.ts` exports one manifest made with
 * `defineModule`; `src/modules/index.ts` lists them, and the schema, the context, the REST routes and the job
 * workers loop over that list. A module adds its service and loaders to `Services` and `Loaders` by declaration
 * merging, so the context is typed without naming any domain:
 *
 *   declare module '../module.js' {
 *     interface Services { pipelines: PipelinesService }
 *     interface Loaders { pipelines: PipelineLoaders }
 *   }
 */
import type { Access } from '../auth/policy.js';
import type { Rule } from '../auth/rules.js';
import type { Viewer } from '../auth/viewer.js';
import type { App } from '../context.js';
import type { Announcement } from '../events/bus.js';
import type { Prisma, PrismaClient, RawExecutor } from '../db/database.js';
import type { JobHandlers } from '../jobs/queue.js';
import type { RestRoute } from '../rest/route.js';

/** What a module's background jobs are made with: the App, and a request context for a viewer (null: anonymous). */
export interface JobEnvironment {
  app: App;
  contextFor(viewer: Viewer | null): { services: Services };
}

/** Each module's service, by module name (filled by the modules). */
export interface Services {}

/** Each module's per-request DataLoaders, by module name (filled by the modules). */
export interface Loaders {}

/**
 * What a REST request tells the services it runs (absent for GraphQL and background work): the things GitLab's API
 * helpers decide that its GraphQL does not, such as following an old project path and answering for its move.
 */
export interface RestRequest {
  /** The request's method (`GET`, `HEAD`, `POST`, …). */
  method: string;
  /** The route's `:id` when the route is `/projects/:id…` and the caller named the project by path; null otherwise. */
  projectPath: string | null;
  /** The request's URL with the route's project named by this ID instead (GitLab's url_with_project_id). */
  withProjectId(id: number): string;
  /** The request's `User-Agent` and the client's address (what GitLab's UserAgentDetail records of a spammable). */
  userAgent?: string;
  ipAddress?: string;
}

/** What every service is built with, besides the sibling services it names in `uses`. */
export interface ServiceBase {
  db: PrismaClient;
  viewer: Viewer | null;
  /** Set on REST requests only. */
  rest?: RestRequest;
  /** The policy for this viewer: abilities, list filters, levels. */
  access: Access;
  loaders: Loaders;
  app: App;
  /**
   * Publishes on the event bus (on commit of `tx` when given) as part of this request: the request answers only
   * once this replica's subscribers have handled it (Context.settle), so its caller never reads around the change.
   */
  publish(topic: string, payload: unknown, tx?: RawExecutor): Promise<void>;
  /**
   * Runs a statement that makes a change and announces it itself (EventBus.announcing): `run` gets the FROM item to
   * join to the row it makes. Its messages are this request's once it succeeds, unless `sent` says the statement sent
   * none (it changed no row to join to).
   */
  announce<T>(messages: readonly Announcement[], run: (notify: Prisma.Sql) => Promise<T>, sent?: (result: T) => boolean): Promise<T>;
}

export interface Module<N extends string = string, U extends keyof Services = keyof Services> {
  /** The domain's one name: `graphql/<name>.graphql`, `graphql/rest/<name>.graphql`, `src/modules/<name>/`. */
  name: N;
  /** SDL files under `graphql/` this module owns. */
  schema: readonly string[];
  /** REST operation files under `graphql/rest/` this module owns. */
  operations: readonly string[];
  /** Its GraphQL resolver map: root fields, subscriptions, and its types' fields. */
  resolvers: Readonly<Record<string, object>>;
  /**
   * The abilities of its subjects, by GitLab's names (its `policy.ts`, GitLab's `<Subject>Policy`): registered into
   * the one table `can` and `allowedWhere` read (src/auth/policy.ts), each ability defined once.
   */
  policy?: Readonly<Record<string, Rule<never, unknown>>>;
  /** Its `/api/v4` routes (paths relative to `/api/v4`). */
  routes: readonly RestRoute[];
  /** Its per-request DataLoaders; `loaders` holds every module's, built on first use. */
  loaders?: (db: PrismaClient, loaders: Loaders) => N extends keyof Loaders ? Loaders[N] : never;
  /** Services of other modules its service is built with; each must come earlier in `src/modules/index.ts`. */
  uses: readonly U[];
  /** Its service, for one request. */
  service: (base: ServiceBase, uses: Pick<Services, U>) => N extends keyof Services ? Services[N] : never;
  /**
   * Background job handlers by job kind (recurring ones with their interval), registered with the job queue at start;
   * made from a JobEnvironment when a handler needs services (it builds a context for the user it acts for).
   */
  jobs?: JobHandlers | ((env: JobEnvironment) => JobHandlers);
  /**
   * What the module keeps of a project beyond rows that cascade with it (repositories, stored bytes other projects'
   * rows may share): removed by the project's deletion before its rows go (App.teardownProject). Idempotent: a
   * deletion interrupted runs it again.
   */
  projectTeardown?: (env: JobEnvironment, projectId: number) => Promise<void>;
}

/** A manifest, typed by its name and the services it uses. */
export function defineModule<N extends keyof Services, U extends keyof Services = never>(module: Module<N, U>): Module<N, U> {
  return module;
}
