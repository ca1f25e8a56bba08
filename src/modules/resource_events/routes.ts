/**
 * The resource events APIs (GitLab's `lib/api/resource_*_events.rb`, every route behind `authenticate!`), made for a
 * parent path by `resourceEventRoutes`: a kind adds its routes with one call and its operations in
 * `graphql/rest/resource_events.graphql`, named `Rest{List,Get}<Kind>Resource<Event>Event(s)`.
 */
import type { RestRoute } from '../../rest/route.js';

/** The event kinds and whether the parent kind has them; weight and iteration (the iterations module's) events are issues' only. */
export type ResourceEventKind = 'Label' | 'Weight' | 'Milestone' | 'State' | 'Iteration';

/** The list and single routes of each kind, under `parent` (`/projects/:id/issues/:issue_iid`), for operations named by `kind` (`Issue`). */
export function resourceEventRoutes(parent: string, kind: string, events: readonly ResourceEventKind[]): RestRoute[] {
  return events.flatMap((event): RestRoute[] => {
    const path = `${parent}/resource_${event.toLowerCase()}_events`;
    const field = `resourceEvents.${event.toLowerCase()}Event`;
    return [
      { method: 'GET', path, operation: `RestList${kind}Resource${event}Events`, result: `${field}s`, paginate: true, authenticate: true },
      { method: 'GET', path: `${path}/:event_id`, operation: `RestGet${kind}Resource${event}Event`, result: field, authenticate: true },
    ];
  });
}

export const resourceEventsRoutes: RestRoute[] = [
  ...resourceEventRoutes('/projects/:id/issues/:issue_iid', 'Issue', ['Label', 'Weight', 'Milestone', 'State']),
  ...resourceEventRoutes('/projects/:id/merge_requests/:merge_request_iid', 'MergeRequest', ['Label', 'Milestone', 'State']),
];
