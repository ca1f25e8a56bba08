/**
 * GitLab's Ci::PipelineSchedulePolicy, with ProjectPolicy's schedule abilities.
 * Registered through this module's manifest into the one table of src/auth/policy.ts; built from src/auth/rules.ts.
 */
import type { Prisma } from '../../db/database.js';
import { AccessLevel } from '../../auth/access-levels.js';
import { administrator, allOf, anyOf, buildsFeature, projectLevel, projectMember, unlessArchived, visible, type PipelineScheduleSubject, type ProjectSubject, type Rule } from '../../auth/rules.js';

const { GUEST, DEVELOPER, MAINTAINER } = AccessLevel;

/**
 * Ci::PipelineSchedulePolicy's `owner_of_schedule & can?(:update_build)`: the schedule's owner while they are a
 * Developer or above. Asked about one schedule at a time, never as a list filter.
 */
const scheduleOwner: Rule<PipelineScheduleSubject, never> = {
  allows: (actor, schedule) => !!actor.viewer && schedule.ownerId === actor.viewer.id && projectLevel(actor, schedule.project) >= DEVELOPER,
  where: () => false,
};

/** A rule about a schedule's project (`can?(:admin_pipeline)` in Ci::PipelineSchedulePolicy). */
function onScheduleProject(rule: Rule<ProjectSubject, unknown>): Rule<PipelineScheduleSubject, never> {
  return { allows: (actor, schedule) => rule.allows(actor, schedule.project), where: () => false };
}

/** PipelineSchedulePolicy's abilities, by name. */
export const pipelineSchedulePolicy = {
  // Pipeline schedules (ProjectPolicy; Ci::PipelineSchedulePolicy for one schedule): whoever reads the project's
  // pipelines reads them (GitLab's `public_builds & guest_access`, public pipelines being its default), Developers
  // create them, only their owner changes them, and Maintainers administer (delete, take over) every one; their
  // variables are shown to those who administer them.
  // GitLab's `builds_disabled | repository_disabled` prevents them all.
  read_pipeline_schedule: allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(visible(), administrator, projectMember(GUEST)), buildsFeature),
  create_pipeline_schedule: unlessArchived(allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(DEVELOPER)), buildsFeature)),
  update_pipeline_schedule: allOf(anyOf<PipelineScheduleSubject, never>(administrator, scheduleOwner), onScheduleProject(buildsFeature)),
  admin_pipeline_schedule: allOf(anyOf<PipelineScheduleSubject, never>(administrator, scheduleOwner, onScheduleProject(projectMember(MAINTAINER))), onScheduleProject(buildsFeature)),
  read_pipeline_schedule_variables: allOf(
    anyOf<PipelineScheduleSubject, never>(administrator, scheduleOwner, onScheduleProject(projectMember(MAINTAINER))),
    onScheduleProject(buildsFeature),
  ),
};

type PipelineSchedulePolicyRules = typeof pipelineSchedulePolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends PipelineSchedulePolicyRules {}
}
