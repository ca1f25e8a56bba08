/**
 * GitLab's shared runners setting of groups and the `shared_runners_enabled` of projects (Namespace's
 * SHARED_RUNNERS_SETTINGS, Groups::UpdateSharedRunnersService): whether instance runners run a project's jobs is the
 * project's flag; a group's setting sets the flags of everything below it, and `disabled_and_unoverridable` keeps
 * them off.
 */
import type { Prisma } from '../../generated/prisma/client.js';
import type { NamespaceRow } from '../namespaces/service.js';

export const SHARED_RUNNERS_SETTINGS = ['disabled_and_unoverridable', 'disabled_and_overridable', 'disabled_with_override', 'enabled'] as const;
export type SharedRunnersSetting = (typeof SHARED_RUNNERS_SETTINGS)[number];

type Flags = Pick<NamespaceRow, 'sharedRunnersEnabled' | 'allowDescendantsOverrideDisabledSharedRunners'>;

/** A group's setting as GitLab shows it (`disabled_with_override` is only ever a deprecated input). */
export function sharedRunnersSetting(group: Flags): SharedRunnersSetting {
  if (group.sharedRunnersEnabled) return 'enabled';
  return group.allowDescendantsOverrideDisabledSharedRunners ? 'disabled_and_overridable' : 'disabled_and_unoverridable';
}

/** Whether a group keeps instance runners off below it: nothing there may turn them on. */
export const forbidsSharedRunners = (group: Flags | null): boolean => !!group && sharedRunnersSetting(group) === 'disabled_and_unoverridable';

/** The flags a new subgroup starts with: its parent's (GitLab's Groups::CreateService inherits both). */
export const inheritedSharedRunners = (parent: Flags | null): Flags => ({
  sharedRunnersEnabled: parent?.sharedRunnersEnabled ?? true,
  allowDescendantsOverrideDisabledSharedRunners: parent?.allowDescendantsOverrideDisabledSharedRunners ?? false,
});

/**
 * Why `group` may not take `setting` under `parent`, in GitLab's words (the model validation its service meets,
 * `Validation failed: …`); null when it may.
 */
export function sharedRunnersSettingError(group: Flags, parent: Flags | null, setting: SharedRunnersSetting): string | null {
  if (!forbidsSharedRunners(parent)) return null;
  if (setting === 'enabled') return 'Validation failed: Shared runners enabled cannot be enabled because parent group has shared Runners disabled';
  if (setting !== 'disabled_and_unoverridable' && !group.sharedRunnersEnabled) {
    return 'Validation failed: Allow descendants override disabled shared runners cannot be enabled because parent group does not allow it';
  }
  return null;
}

/**
 * Applies `setting` to the group, its subgroups and all their projects, as GitLab's service does: enabling or
 * disabling without override sets every flag below; disabling with override from enabled turns the flags below off
 * (descendants keep their override choice), from disabled only allows the override.
 */
export async function applySharedRunnersSetting(tx: Prisma.TransactionClient, group: NamespaceRow, setting: SharedRunnersSetting): Promise<void> {
  const below = { traversalIds: { has: group.id } };
  const projectsBelow = { namespace: below };
  if (setting === 'enabled' || setting === 'disabled_and_unoverridable') {
    const enabled = setting === 'enabled';
    await tx.namespace.updateMany({ where: below, data: { sharedRunnersEnabled: enabled, allowDescendantsOverrideDisabledSharedRunners: false } });
    await tx.project.updateMany({ where: projectsBelow, data: { sharedRunnersEnabled: enabled } });
    return;
  }
  if (group.sharedRunnersEnabled) {
    await tx.namespace.update({ where: { id: group.id }, data: { sharedRunnersEnabled: false, allowDescendantsOverrideDisabledSharedRunners: true }, select: { id: true } });
    await tx.namespace.updateMany({ where: { ...below, id: { not: group.id } }, data: { sharedRunnersEnabled: false } });
    await tx.project.updateMany({ where: projectsBelow, data: { sharedRunnersEnabled: false } });
  } else {
    await tx.namespace.update({ where: { id: group.id }, data: { allowDescendantsOverrideDisabledSharedRunners: true }, select: { id: true } });
  }
}
