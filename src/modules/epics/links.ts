/**
 * Child epics (GitLab's Epic Links API, `ee/lib/api/epic_links.rb`): an epic's children in tree order, an existing
 * epic made a child (Epics::EpicLinks::CreateService with Epic#valid_parent? and the save's validations), a new child
 * epic, a child moved among its siblings (Epics::EpicLinks::UpdateService) and a child unassigned. Every refusal in
 * GitLab's words and status.
 */
import type { Prisma } from '../../db/database.js';
import { conflict, forbidden, invalid, notFoundAs, recordNotFound } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import type { ServiceBase } from '../module.js';
import type { NamespaceRow } from '../namespaces/service.js';
import { positionAtStart } from '../issues/positions.js';
import { toSentence } from '../resource_events/issuables.js';
import type { EpicRow, EpicsService } from './service.js';

/** Epic::MAX_HIERARCHY_DEPTH: levels of a tree of epics, the top-level one included. */
export const MAX_HIERARCHY_DEPTH = 7;
/** Epic::MAX_CHILDREN_COUNT. */
export const MAX_CHILDREN_COUNT = 100;

const NO_MATCHING_EPIC = 'No matching epic found. Make sure that you are adding a valid epic URL.';
const NOT_FOUND_FOR_PARAMS = 'Epic not found for given params';
const DEPTH_EXCEEDED = `This epic cannot be added. One or more epics would exceed the maximum depth (${MAX_HIERARCHY_DEPTH}) from its most distant ancestor.`;
const CONFIDENTIAL_PARENT = 'A non-confidential epic cannot be assigned to a confidential parent epic';
const TOO_MANY_CHILDREN = 'You cannot add any more epics. This epic already has maximum number of child epics.';


export class EpicLinks {
  constructor(
    private readonly base: ServiceBase,
    private readonly epics: EpicsService,
  ) {}

  private get db() {
    return this.base.db;
  }

  /** EpicsFinder with `group_id` (and its subgroups): an epic by id the viewer may read, null otherwise. */
  private async inGroup(group: NamespaceRow, id: number): Promise<EpicRow | null> {
    const epic = await this.epics.byId(id);
    if (!epic) return null;
    const of = await this.base.loaders.namespaces.byId.load(epic.groupId);
    return of && of.traversalIds.includes(group.id) ? epic : null;
  }

  /** The parent epic of a write: 403 unless the viewer changes epics of its group (`admin_epic_link_relation`). */
  private parent(group: NamespaceRow, iid: number): Promise<EpicRow> {
    return this.epics.get(group, iid, 'admin_epic');
  }

  /** The readable children of an epic (of the group and its subgroups), by tree position, then newest first. */
  async children(group: NamespaceRow, epic: EpicRow, page: PageArgs) {
    const where: Prisma.EpicWhereInput = {
      AND: [{ parentId: epic.id }, { group: { is: { traversalIds: { has: group.id } } } }, await this.base.access.where('read_epic')],
    };
    return connection(
      page,
      ({ skip, take }) => this.db.epic.findMany({ where, orderBy: [{ relativePosition: { sort: 'asc', nulls: 'last' } }, { id: 'desc' }], skip, take }),
      () => this.db.epic.count({ where }),
    );
  }

  /** Gitlab::ObjectHierarchy#max_descendants_depth: levels of the epic's subtree, the epic itself being 1. */
  private async subtreeDepth(epicId: number): Promise<number> {
    const [row] = await this.db.$queryRaw<{ depth: number }[]>`
      WITH RECURSIVE "tree" ("id", "depth") AS (
        SELECT "id", 1 FROM "epics" WHERE "id" = ${epicId}
        UNION ALL
        SELECT "e"."id", "t"."depth" + 1 FROM "epics" "e" JOIN "tree" "t" ON "e"."parentId" = "t"."id" WHERE "t"."depth" <= ${MAX_HIERARCHY_DEPTH}
      )
      SELECT MAX("depth")::int AS "depth" FROM "tree"`;
    return row?.depth ?? 1;
  }

  /** The ids of the epic's ancestors, its parent first (a cycle, which writes refuse, ends the walk). */
  private async ancestorIds(epic: EpicRow): Promise<number[]> {
    if (epic.parentId === null) return [];
    const rows = await this.db.$queryRaw<{ id: number }[]>`
      WITH RECURSIVE "up" ("id", "parentId", "depth") AS (
        SELECT "id", "parentId", 1 FROM "epics" WHERE "id" = ${epic.parentId}
        UNION ALL
        SELECT "e"."id", "e"."parentId", "u"."depth" + 1 FROM "epics" "e" JOIN "up" "u" ON "e"."id" = "u"."parentId" WHERE "u"."depth" <= 100
      )
      SELECT "id" FROM "up" ORDER BY "depth"`;
    return rows.map((r) => r.id);
  }

  /**
   * Why `child` may not go under `parent`, in the model's words (Epic#validate_parent_epic, then the save's
   * validate_confidential_parent and validate_children_count); none when it may. `above`: the parent's ancestors.
   */
  private async refusals(child: EpicRow, parent: EpicRow, above: readonly number[]): Promise<string[]> {
    if (child.id === parent.id) return ['This epic cannot be added. An epic cannot be added to itself.'];
    if (child.parentId === parent.id) return ['This epic cannot be added. It is already assigned to the parent epic.'];
    if (above.includes(child.id)) return ['This epic cannot be added. It is already an ancestor of the parent epic.'];
    if ((await this.subtreeDepth(child.id)) + above.length >= MAX_HIERARCHY_DEPTH) return [DEPTH_EXCEEDED];
    const errors: string[] = [];
    if (!child.confidential && parent.confidential) errors.push(CONFIDENTIAL_PARENT);
    if ((await this.db.epic.count({ where: { parentId: parent.id } })) >= MAX_CHILDREN_COUNT) errors.push(TOO_MANY_CHILDREN);
    return errors;
  }

  /**
   * `POST …/epics/:epic_iid/epics/:child_epic_id` (Epics::EpicLinks::CreateService): an epic of the group or its
   * subgroups becomes the epic's child, first among its children; the child as it is now.
   */
  async assign(group: NamespaceRow, iid: number, childId: number): Promise<EpicRow> {
    const parent = await this.parent(group, iid);
    const child = await this.inGroup(group, childId);
    if (!child || !(await this.base.access.can('admin_epic', await this.epics.subject(child)))) throw notFoundAs(NO_MATCHING_EPIC);
    // Epic#max_hierarchy_depth_achieved?: the parent is already at the deepest level a parent may be.
    const above = await this.ancestorIds(parent);
    if (parent.parentId !== null && above.length + 1 >= MAX_HIERARCHY_DEPTH) throw conflict(DEPTH_EXCEEDED);
    const errors = await this.refusals(child, parent, above);
    if (errors.length) throw conflict(toSentence(errors));
    return this.db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT "id" FROM "epics" WHERE "id" = ${parent.id} FOR UPDATE`;
      // EpicTreeSorting#move_to_start: before every child, epics and epic-issues alike.
      const [epics, issues] = await Promise.all([
        tx.epic.aggregate({ where: { parentId: parent.id }, _min: { relativePosition: true } }),
        tx.epicIssue.aggregate({ where: { epicId: parent.id }, _min: { relativePosition: true } }),
      ]);
      const firsts = [epics._min.relativePosition, issues._min.relativePosition].filter((p): p is number => p !== null);
      const relativePosition = positionAtStart(firsts.length ? Math.min(...firsts) : null);
      return tx.epic.update({ where: { id: child.id }, data: { parentId: parent.id, relativePosition, updatedAt: new Date() } });
    });
  }

  /**
   * `POST …/epics/:epic_iid/epics` (Epics::CreateService with the parent): a new epic of the group under the epic,
   * confidential when the parent is unless told otherwise. The model's validations answer 400 by field.
   */
  async create(group: NamespaceRow, iid: number, input: { title: string; confidential?: boolean | null }): Promise<EpicRow> {
    const parent = await this.parent(group, iid);
    const confidential = input.confidential ?? parent.confidential;
    const fields: Record<string, string[]> = {};
    const above = await this.ancestorIds(parent);
    if (1 + above.length >= MAX_HIERARCHY_DEPTH) fields.parent = [DEPTH_EXCEEDED];
    else if ((await this.db.epic.count({ where: { parentId: parent.id } })) >= MAX_CHILDREN_COUNT) fields.parent = [TOO_MANY_CHILDREN];
    if (!confidential && parent.confidential) fields.confidential = [CONFIDENTIAL_PARENT];
    if (Object.keys(fields).length) throw invalid(fields);
    return this.epics.create(group, { title: input.title, confidential, parentId: parent.id });
  }

  /** One of the epic's children, by id, for a change: `notFound` when it is not one the viewer may read. */
  private async childOf(group: NamespaceRow, parent: EpicRow, childId: number, notFound: () => Error): Promise<EpicRow> {
    const child = await this.inGroup(group, childId);
    if (!child || child.parentId !== parent.id) throw notFound();
    return child;
  }

  /**
   * `PUT …/epics/:epic_iid/epics/:child_epic_id` (Epics::EpicLinks::UpdateService): the child between `moveBeforeId`
   * (the sibling to come before it) and `moveAfterId` (the one to come after it), through the epic tree's ordering.
   */
  async move(group: NamespaceRow, iid: number, childId: number, moveBeforeId: number | null, moveAfterId: number | null): Promise<EpicRow> {
    const parent = await this.parent(group, iid);
    const child = await this.childOf(group, parent, childId, () => notFoundAs(NOT_FOUND_FOR_PARAMS));
    const siblings = [moveBeforeId, moveAfterId].filter((id): id is number => id !== null);
    if (!siblings.length) return parent;
    const found = await this.db.epic.findMany({ where: { id: { in: siblings }, parentId: parent.id }, select: { id: true } });
    if (found.length !== new Set(siblings).size) throw notFoundAs(NOT_FOUND_FOR_PARAMS);
    const adjacent = moveBeforeId ?? moveAfterId!;
    const errors = await this.epics.reorderTree(parent.id, {
      id: { type: 'Epic', id: child.id },
      adjacentReferenceId: { type: 'Epic', id: adjacent },
      // The tree's `before`: the adjacent one comes before the moved one.
      relativePosition: moveBeforeId !== null ? 'before' : 'after',
    });
    if (errors.length) throw notFoundAs(NOT_FOUND_FOR_PARAMS);
    return parent;
  }

  /** `DELETE …/epics/:epic_iid/epics/:child_epic_id`: the child leaves the epic; the child as it is now. */
  async unassign(group: NamespaceRow, iid: number, childId: number): Promise<EpicRow> {
    const parent = await this.parent(group, iid);
    const child = await this.childOf(group, parent, childId, recordNotFound);
    if (!(await this.base.access.can('admin_epic', await this.epics.subject(child)))) throw forbidden();
    return this.db.epic.update({ where: { id: child.id }, data: { parentId: null, relativePosition: null, updatedAt: new Date() } });
  }
}
