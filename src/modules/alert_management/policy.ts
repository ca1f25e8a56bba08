/**
 * Abilities on alerts and their integrations, from GitLab's ProjectPolicy: Reporters read alerts
 * (read_alert_management_alert), Developers work them (update_alert_management_alert) and send test alerts,
 * Maintainers set up integrations (admin_operations, ProjectPolicy's own:
 * src/modules/projects/policy.ts).
 */
import type { Prisma } from '../../db/database.js';
import { AccessLevel } from '../../auth/access-levels.js';
import { administrator, anyOf, projectMember, type ProjectSubject } from '../../auth/rules.js';

const { REPORTER, DEVELOPER } = AccessLevel;

const atLeast = (level: number) => anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(level));

/** ProjectPolicy's alert management abilities. */
export const alertManagementPolicy = {
  read_alert_management_alert: atLeast(REPORTER),
  update_alert_management_alert: atLeast(DEVELOPER),
  read_alert_management_metric_image: atLeast(REPORTER),
  upload_alert_management_metric_image: atLeast(DEVELOPER),
  update_alert_management_metric_image: atLeast(DEVELOPER),
  destroy_alert_management_metric_image: atLeast(DEVELOPER),
  /** Sending a test alert through an integration. */
  test_alert_management_integration: atLeast(DEVELOPER),
};

type AlertManagementRules = typeof alertManagementPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends AlertManagementRules {}
}
