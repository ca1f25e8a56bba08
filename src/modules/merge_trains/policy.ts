/**
 * EE's merge train abilities: ProjectPolicy's `read_merge_train` (the Merge Trains API is for Developers and above)
 * and MergeTrains::CarPolicy's `delete_car` (the car's user while still a Developer, or a Maintainer).
 * Registered through this module's manifest into the one table of src/auth/policy.ts; built from src/auth/rules.ts.
 */
import type { Prisma } from '../../db/database.js';
import { AccessLevel } from '../../auth/access-levels.js';
import { administrator, allOf, anyOf, buildsFeature, projectLevel, projectMember, type ProjectSubject, type Rule } from '../../auth/rules.js';

const { DEVELOPER, MAINTAINER } = AccessLevel;

/** A merge train car, by its project and the user who put it on the train. */
export interface MergeTrainCarSubject {
  project: ProjectSubject;
  userId: number | null;
}

const readMergeTrain = allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(DEVELOPER)), buildsFeature);

/** The car's user, while a Developer of its project. Asked about one car at a time, never as a list filter. */
const carUser: Rule<MergeTrainCarSubject, never> = {
  allows: (actor, car) => !!actor.viewer && car.userId === actor.viewer.id && projectLevel(actor, car.project) >= DEVELOPER,
  where: () => false,
};

const carMaintainer: Rule<MergeTrainCarSubject, never> = {
  allows: (actor, car) => projectLevel(actor, car.project) >= MAINTAINER,
  where: () => false,
};

const onCarProject = (rule: Rule<ProjectSubject, unknown>): Rule<MergeTrainCarSubject, never> => ({ allows: (actor, car) => rule.allows(actor, car.project), where: () => false });

/** The merge train abilities, by name. */
export const mergeTrainPolicy = {
  read_merge_train: readMergeTrain,
  delete_car: allOf(anyOf<MergeTrainCarSubject, never>(administrator, carUser, carMaintainer), onCarProject(buildsFeature)),
};

type MergeTrainPolicyRules = typeof mergeTrainPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends MergeTrainPolicyRules {}
}
