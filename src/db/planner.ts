/**
 * Planner settings every connection starts with, on PGlite and PostgreSQL alike.
 *
 * `join_collapse_limit=1`: explicit joins are planned in their written order. Prisma writes one LEFT JOIN per
 * relation filter, so a list behind the access filters (src/auth) joins the same projects, namespaces and feature
 * rows several times: GET /users/:id/merge_requests as a member reads 9 joins and 2 laterals. PostgreSQL's planner
 * spent 13–29 ms choosing an order for them (PostgreSQL 15; 170–550 ms on PGlite's WebAssembly), to run a plan of
 * 0.3 ms; kept in order it plans in about 1 ms. Prisma's joins start from the listed table, filtered by its own
 * indexed conditions, and reach each relation by its key, which is the order the planner would pick; the SQL written
 * by hand (src/db/direct-reads.ts and the services' raw queries) is written driving table first too. Subqueries
 * (`some`, `EXISTS`, `IN`) are still flattened and reordered (from_collapse_limit is untouched).
 */
export const PLANNER_SETTINGS: readonly string[] = ['join_collapse_limit=1'];
