/** GraphQL resolvers of error tracking; the client-key REST routes run through them too. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { globalId, parseRef } from '../../graphql/ids.js';
import type { ProjectRow } from '../projects/service.js';
import { sentryDsn, type ClientKeyRow, type ErrorEventRow, type ErrorRow, type ErrorStatus, type SettingRow } from './service.js';

const projectOf = (ctx: Context, projectPath: string) => ctx.services.projects.get(parseRef(projectPath, 'Project', 'projectPath'));

/** The SentryErrorCollection of one project: its errors are read through it. */
interface Collection {
  project: ProjectRow;
}

/**
 * GitLab's title_truncated: the name and description, cut at 64 characters; a message event's, whose name is its
 * description, is the message once.
 */
const title = (e: ErrorRow) => {
  const full = e.description && e.description !== e.name ? `${e.name} ${e.description}` : e.name;
  return full.length > 64 ? `${full.slice(0, 61)}...` : full;
};

const errorUrl = (ctx: Context, project: ProjectRow, e: ErrorRow) => `${ctx.config.externalUrl}/${project.fullPath}/-/error_tracking/${e.id}/details`;

const projectById = (ctx: Context, e: ErrorRow) => ctx.loaders.projects.byId.load(e.projectId) as Promise<ProjectRow>;

/** The fields SentryError and SentryDetailedError share, from GitLab's to_sentry_error. */
const errorFields = (type: string) => ({
  id: (e: ErrorRow) => globalId(type, e.id),
  sentryId: (e: ErrorRow) => String(e.id),
  title,
  // Sentry's event type of errors; the integrated backend stores exceptions and messages alike as errors.
  type: () => 'error',
  message: (e: ErrorRow) => e.description,
  culprit: (e: ErrorRow) => e.actor,
  count: (e: ErrorRow) => e.eventsCount,
  userCount: (e: ErrorRow, _a: unknown, ctx: Context) => ctx.loaders.error_tracking.userCounts.load(e.id),
  firstSeen: (e: ErrorRow) => e.firstSeenAt,
  lastSeen: (e: ErrorRow) => e.lastSeenAt,
  status: (e: ErrorRow) => e.status,
  // GitLab's integrated errors carry no frequency stats.
  frequency: () => [],
  externalUrl: async (e: ErrorRow, _a: unknown, ctx: Context) => errorUrl(ctx, await projectById(ctx, e), e),
  sentryProjectId: (e: ErrorRow) => String(e.projectId),
  sentryProjectName: async (e: ErrorRow, _a: unknown, ctx: Context) => (await projectById(ctx, e)).name,
  sentryProjectSlug: async (e: ErrorRow, _a: unknown, ctx: Context) => (await projectById(ctx, e)).path,
  shortId: async (e: ErrorRow, _a: unknown, ctx: Context) => `${(await projectById(ctx, e)).path.toUpperCase()}-${e.id.toString(36).toUpperCase()}`,
});

const releaseOf = (event: ErrorEventRow | null) => {
  const release = (event?.payload as { release?: unknown } | undefined)?.release;
  return typeof release === 'string' ? release : null;
};

interface Frame {
  colno?: unknown;
  lineno?: unknown;
  filename?: unknown;
  abs_path?: unknown;
  function?: unknown;
  context_line?: unknown;
  pre_context?: unknown;
  post_context?: unknown;
}

/** The stack trace entries of an event's chosen exception, innermost first as GitLab shows them. */
function stackTraceEntries(payload: unknown) {
  const exception = (payload as { exception?: unknown })?.exception;
  const values = Array.isArray(exception) ? exception : Array.isArray((exception as { values?: unknown })?.values) ? (exception as { values: unknown[] }).values : [];
  const withTrace = values.find((v) => Array.isArray((v as { stacktrace?: { frames?: unknown } })?.stacktrace?.frames)) as { stacktrace: { frames: Frame[] } } | undefined;
  const frames = withTrace ? withTrace.stacktrace.frames.filter((f) => f && typeof f === 'object') : [];
  const text = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : null);
  return [...frames].reverse().map((f) => {
    const line = typeof f.lineno === 'number' ? f.lineno : null;
    const pre = Array.isArray(f.pre_context) ? f.pre_context : [];
    const post = Array.isArray(f.post_context) ? f.post_context : [];
    const traceContext =
      line === null
        ? null
        : [...pre.map((code, i) => ({ line: line - pre.length + i, code })), ...(f.context_line !== undefined ? [{ line, code: f.context_line }] : []), ...post.map((code, i) => ({ line: line + 1 + i, code }))]
            .filter((c) => typeof c.code === 'string')
            .map((c) => ({ line: c.line, code: c.code as string }));
    return { col: text(f.colno), line: text(f.lineno), fileName: text(f.filename) ?? text(f.abs_path), function: text(f.function), traceContext };
  });
}

type ErrorListArgs = PageArgs & { searchTerm?: string | null; sort?: string | null; status?: ErrorStatus | null };

export const errorTrackingResolvers = {
  SentryErrorStatus: { RESOLVED: 'resolved', RESOLVED_IN_NEXT_RELEASE: 'resolvedInNextRelease', UNRESOLVED: 'unresolved', IGNORED: 'ignored' },
  ErrorTrackingClientKey: {
    id: (k: ClientKeyRow) => globalId('ErrorTracking::ClientKey', k.id),
    databaseId: (k: ClientKeyRow) => k.id,
    sentryDsn: (k: ClientKeyRow, _a: unknown, ctx: Context) => sentryDsn(ctx.config.externalUrl, k.publicKey, k.projectId),
  },
  SentryError: errorFields('Gitlab::ErrorTracking::Error'),
  SentryDetailedError: {
    ...errorFields('Gitlab::ErrorTracking::DetailedError'),
    integrated: () => true,
    externalBaseUrl: async (e: ErrorRow, _a: unknown, ctx: Context) => `${ctx.config.externalUrl}/${(await projectById(ctx, e)).fullPath}`,
    tags: async (e: ErrorRow, _a: unknown, ctx: Context) => {
      const latest = await ctx.loaders.error_tracking.latestEvents.load(e.id);
      const logger = (latest?.payload as { logger?: unknown } | undefined)?.logger;
      return { level: latest?.level ?? null, logger: typeof logger === 'string' ? logger : null };
    },
    firstReleaseVersion: async (e: ErrorRow, _a: unknown, ctx: Context) => releaseOf(await ctx.loaders.error_tracking.firstEvents.load(e.id)),
    lastReleaseVersion: async (e: ErrorRow, _a: unknown, ctx: Context) => releaseOf(await ctx.loaders.error_tracking.latestEvents.load(e.id)),
    events: (e: ErrorRow, args: PageArgs, ctx: Context) => ctx.services.error_tracking.listEvents(e, args),
  },
  ErrorTrackingErrorEvent: {
    description: (v: ErrorEventRow) => v.description,
  },
  SentryErrorCollection: {
    errors: (c: Collection, args: ErrorListArgs, ctx: Context) => {
      const sort = args.sort === 'first_seen' || args.sort === 'frequency' ? args.sort : 'last_seen';
      return ctx.services.error_tracking.listErrors(c.project, { searchTerm: args.searchTerm, status: args.status, sort }, args);
    },
    detailedError: (c: Collection, args: { id: number }, ctx: Context) => ctx.services.error_tracking.getError(c.project, args.id),
    errorStackTrace: async (c: Collection, args: { id: number }, ctx: Context) => {
      const error = await ctx.services.error_tracking.getError(c.project, args.id);
      if (!error) return null;
      const latest = await ctx.loaders.error_tracking.latestEvents.load(error.id);
      return { issueId: String(error.id), dateReceived: (latest?.occurredAt ?? error.lastSeenAt).toISOString(), stackTraceEntries: stackTraceEntries(latest?.payload) };
    },
    externalUrl: (c: Collection, _a: unknown, ctx: Context) => `${ctx.config.externalUrl}/${c.project.fullPath}/-/error_tracking`,
  },
  Query: {
    projectErrorTrackingSetting: async (_: unknown, args: { projectPath: string }, ctx: Context) =>
      ctx.services.error_tracking.getSetting(await projectOf(ctx, args.projectPath)),
  },
  Project: {
    sentryErrors: async (project: ProjectRow, _a: unknown, ctx: Context): Promise<Collection | null> =>
      (await ctx.access.can('read_sentry_issue', project)) ? { project } : null,
    errorTrackingSetting: (project: ProjectRow, _a: unknown, ctx: Context) => ctx.services.error_tracking.getSetting(project),
    errorTrackingClientKeys: (project: ProjectRow, args: PageArgs, ctx: Context) => ctx.services.error_tracking.listKeys(project, args),
    errorTrackingSessions: (project: ProjectRow, args: PageArgs, ctx: Context) => ctx.services.error_tracking.listSessions(project, args),
  },
  ProjectErrorTrackingSetting: {
    active: (s: SettingRow) => s.enabled,
    // This server has no Sentry backend to name: these describe an external Sentry project in GitLab.
    projectName: () => null,
    sentryExternalUrl: () => null,
    apiUrl: () => null,
  },
  Mutation: {
    projectErrorTrackingSettingsUpdate: async (
      _: unknown,
      input: { projectPath: string; active: boolean; integrated?: boolean | null; create?: boolean | null },
      ctx: Context,
    ) => ({ errorTrackingSetting: await ctx.services.error_tracking.updateSetting(await projectOf(ctx, input.projectPath), input) }),
    errorTrackingClientKeyCreate: async (_: unknown, input: { projectPath: string }, ctx: Context) => ({
      clientKey: await ctx.services.error_tracking.createKey(await projectOf(ctx, input.projectPath)),
    }),
    errorTrackingClientKeyDestroy: async (_: unknown, input: { projectPath: string; id: number }, ctx: Context) => ({
      clientKey: await ctx.services.error_tracking.deleteKey(await projectOf(ctx, input.projectPath), input.id),
    }),
    sentryErrorUpdate: async (_: unknown, input: { projectPath: string; id: number; status: ErrorStatus | 'resolvedInNextRelease' }, ctx: Context) => ({
      // The integrated backend knows no releases: resolved in the next release is resolved.
      error: await ctx.services.error_tracking.updateStatus(await projectOf(ctx, input.projectPath), input.id, input.status === 'resolvedInNextRelease' ? 'resolved' : input.status),
    }),
  },
};
