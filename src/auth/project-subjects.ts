/**
 * What deciding access to a project reads (its visibility and its namespace's place), remembered for long-lived
 * subscriptions, which check it on every message: a project turned private, moved to another namespace or deleted
 * stops reaching those who may no longer read it. PROJECTS_CHANGED, published by whatever changes those, drops the
 * entries at once on every replica (before any event the change causes reaches a subscriber: the bus keeps order).
 */
import { Remembered } from '../events/remembered.js';
import type { Bus } from './credential-cache.js';
import type { ProjectSubject } from './policy.js';

/** Bus topic: the visibility, namespace or existence of these projects changed. */
export const PROJECTS_CHANGED = 'projects.changed';

/** Which projects changed: ids, or `all` where a change reaches a namespace's whole tree (a group moved). */
export interface ProjectsChanged {
  projectIds: number[] | 'all';
}

/** Bounds what a change nobody announced could leave stale. */
const SUBJECTS_TTL_MS = 30_000;
const SUBJECTS_CACHE_SIZE = 10_000;

export class ProjectSubjectCache {
  private readonly held = new Remembered<number, ProjectSubject | null>({ ttlMs: SUBJECTS_TTL_MS, size: SUBJECTS_CACHE_SIZE });
  private readonly unsubscribe: () => void;

  constructor(
    bus: Bus,
    /** The project's subject as it is now; null once it is deleted (or being deleted). */
    private readonly load: (projectId: number) => Promise<ProjectSubject | null>,
  ) {
    this.unsubscribe = bus.subscribe(PROJECTS_CHANGED, (payload) => {
      const { projectIds } = payload as ProjectsChanged;
      const changed = new Set(projectIds === 'all' ? [] : projectIds);
      this.held.forget((id) => projectIds === 'all' || changed.has(id));
    });
  }

  /** The project's subject as the App remembers it, loaded once for every subscription when it is not. */
  of(projectId: number): Promise<ProjectSubject | null> {
    return this.held.get(projectId, () => this.load(projectId));
  }

  stop(): void {
    this.unsubscribe();
    this.held.clear();
  }
}
