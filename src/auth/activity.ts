/**
 * Users' last activity day (GitLab's Users::ActivityService): every request a token authenticates (REST, GraphQL,
 * graphql-ws, git over HTTP) marks its user active today. At most one write per user per day in each replica: the
 * day a user was last marked is remembered here, and the write itself only moves the day forward, so replicas racing
 * write the same thing. The write runs beside the request, never in its way; a failure is logged, not answered.
 */
import type { Authenticator } from './credentials.js';
import type { Viewer } from './viewer.js';

/** Moves a user's last activity day to `day` unless it is already there (users module: recordUserActivity). */
export type ActivityWriter = (userId: number, day: Date) => Promise<void>;

export class ActivityRecorder {
  /** The day (YYYY-MM-DD) each user was last marked by this replica. */
  private readonly marked = new Map<number, string>();

  constructor(
    private readonly write: ActivityWriter,
    private readonly onError: (error: unknown) => void,
    private readonly today: () => Date = () => new Date(),
  ) {}

  /** Marks the viewer active today, once a day. */
  seen(viewer: Viewer): void {
    const now = this.today();
    const day = now.toISOString().slice(0, 10);
    if (this.marked.get(viewer.id) === day) return;
    // Bounded: a day's worth of active users; the whole map goes when it holds a later day's users only.
    if (this.marked.size > 100_000) this.marked.clear();
    this.marked.set(viewer.id, day);
    this.write(viewer.id, new Date(`${day}T00:00:00Z`)).catch((error: unknown) => {
      this.marked.delete(viewer.id);
      this.onError(error);
    });
  }

  /** The authenticator, marking each viewer it authenticates. */
  wrap(authenticate: Authenticator): Authenticator {
    return async (digest) => {
      const viewer = await authenticate(digest);
      this.seen(viewer);
      return viewer;
    };
  }
}
