/**
 * Owns protected branch rules (GitLab's ProtectedBranch with its push, merge and unprotect access levels): the
 * ProtectedBranches API for Maintainers, the rules that match a branch (for the push checks of
 * RepositoriesService.authorizeRefUpdate), and GitLab's protection of a project's first default branch.
 */
import { DEFAULT_BRANCH_PROTECTION, DEFAULT_PROTECTED_REF_LEVEL, PROTECTED_REF_ACCESS_LEVELS } from '../../auth/access-levels.js';
import type { RefSubject } from '../../auth/policy.js';
import type { Prisma } from '../../db/database.js';
import { containsIgnoringCase } from '../../db/text.js';
import { conflict, invalidArgument, missing, recordNotFound } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import type { ServiceBase } from '../module.js';
import type { ProjectRow } from '../projects/service.js';
import { escapeRegExp } from '../../regexp.js';

export type AccessAction = 'push' | 'merge' | 'unprotect';

const WITH_LEVELS = { include: { accessLevels: { orderBy: { id: 'asc' as const } } } };

export type ProtectedBranchRow = Prisma.ProtectedBranchGetPayload<typeof WITH_LEVELS>;
export type ProtectedBranchAccessRow = ProtectedBranchRow['accessLevels'][number];

export interface ProtectedBranchInput {
  name: string;
  pushAccessLevel?: number | null;
  mergeAccessLevel?: number | null;
  unprotectAccessLevel?: number | null;
  allowForcePush?: boolean | null;
  codeOwnerApprovalRequired?: boolean | null;
}

export interface ProtectedBranchChanges {
  allowForcePush?: boolean | null;
  codeOwnerApprovalRequired?: boolean | null;
}

/** GitLab's RefMatcher: `*` matches any run of characters (slashes too); anything else matches itself. */
export function matchesBranch(pattern: string, branch: string): boolean {
  if (!pattern.includes('*')) return pattern === branch;
  const source = pattern.split('*').map(escapeRegExp).join('.*?');
  return new RegExp(`^${source}$`, 's').test(branch);
}

function checkedLevel(argument: string, level: number | null | undefined): number | undefined {
  if (level == null) return undefined;
  if (!(level in PROTECTED_REF_ACCESS_LEVELS)) throw invalidArgument(argument);
  return level;
}

export class ProtectedBranchesService {
  /** Each project's rules, read once per request for every ref asked about. */
  private readonly rules = new Map<number, Promise<ProtectedBranchRow[]>>();

  constructor(private readonly base: ServiceBase) {}

  /** The project's rules, by ID, those containing `search` only when given. Maintainers and above. */
  async list(project: ProjectRow, search: string | null | undefined, page: PageArgs) {
    await this.base.access.authorize('admin_protected_branch', project);
    const db = this.base.db;
    const where: Prisma.ProtectedBranchWhereInput = { projectId: project.id, ...(search ? { name: containsIgnoringCase(search) } : {}) };
    return connection(
      page,
      ({ skip, take }) => db.protectedBranch.findMany({ where, orderBy: { id: 'asc' }, skip, take, ...WITH_LEVELS }),
      () => db.protectedBranch.count({ where }),
    );
  }

  /** The rule named exactly `name`. Maintainers and above. */
  async get(project: ProjectRow, name: string): Promise<ProtectedBranchRow> {
    await this.base.access.authorize('admin_protected_branch', project);
    return this.named(project, name);
  }

  async create(project: ProjectRow, input: ProtectedBranchInput): Promise<ProtectedBranchRow> {
    await this.base.access.authorize('admin_protected_branch', project);
    if (!input.name) throw missing('name');
    const levels: { action: AccessAction; accessLevel: number }[] = [
      { action: 'push', accessLevel: checkedLevel('pushAccessLevel', input.pushAccessLevel) ?? DEFAULT_PROTECTED_REF_LEVEL },
      { action: 'merge', accessLevel: checkedLevel('mergeAccessLevel', input.mergeAccessLevel) ?? DEFAULT_PROTECTED_REF_LEVEL },
    ];
    const unprotect = checkedLevel('unprotectAccessLevel', input.unprotectAccessLevel);
    if (unprotect !== undefined) levels.push({ action: 'unprotect', accessLevel: unprotect });
    const exists = await this.base.db.protectedBranch.findUnique({ where: { projectId_name: { projectId: project.id, name: input.name } }, select: { id: true } });
    if (exists) throw conflict(`Protected branch '${input.name}' already exists`);
    return this.base.db.protectedBranch.create({
      data: {
        projectId: project.id,
        name: input.name,
        allowForcePush: input.allowForcePush ?? false,
        codeOwnerApprovalRequired: input.codeOwnerApprovalRequired ?? false,
        accessLevels: { create: levels },
      },
      ...WITH_LEVELS,
    });
  }

  async update(project: ProjectRow, name: string, changes: ProtectedBranchChanges): Promise<ProtectedBranchRow> {
    await this.base.access.authorize('admin_protected_branch', project);
    const rule = await this.named(project, name);
    return this.base.db.protectedBranch.update({
      where: { id: rule.id },
      data: { allowForcePush: changes.allowForcePush ?? undefined, codeOwnerApprovalRequired: changes.codeOwnerApprovalRequired ?? undefined },
      ...WITH_LEVELS,
    });
  }

  async delete(project: ProjectRow, name: string): Promise<ProtectedBranchRow> {
    await this.base.access.authorize('admin_protected_branch', project);
    const rule = await this.named(project, name);
    await this.base.db.protectedBranch.delete({ where: { id: rule.id } });
    return rule;
  }

  /** Every rule of the project, with its access levels; no ability is checked (the push checks read them for anyone). */
  all(projectId: number): Promise<ProtectedBranchRow[]> {
    return this.base.db.protectedBranch.findMany({ where: { projectId }, orderBy: { id: 'asc' }, ...WITH_LEVELS });
  }

  /** The project's rules that cover `branch` (its name or a wildcard matching it), with their access levels. */
  async matching(projectId: number, branch: string): Promise<ProtectedBranchRow[]> {
    let all = this.rules.get(projectId);
    if (!all) this.rules.set(projectId, (all = this.all(projectId)));
    return (await all).filter((rule) => matchesBranch(rule.name, branch));
  }

  /** A ref as the policy asks about it (RefSubject): the push and merge levels of the rules covering it; a tag has none. */
  async refSubject(project: ProjectRow, ref: string, tag: boolean): Promise<RefSubject> {
    const rules = tag ? [] : await this.matching(project.id, ref);
    if (rules.length === 0) return { project, protection: null };
    const levels = (action: 'push' | 'merge') => rules.flatMap((rule) => rule.accessLevels.filter((level) => level.action === action).map((level) => level.accessLevel));
    return { project, protection: { push: levels('push'), merge: levels('merge') } };
  }

  /** Whether any of the branches is protected (GitLab's ProtectedBranch.any_protected?). */
  async anyProtected(projectId: number, branches: readonly string[]): Promise<boolean> {
    if (branches.length === 0) return false;
    const rules = await this.base.db.protectedBranch.findMany({ where: { projectId }, select: { name: true } });
    return branches.some((branch) => rules.some((rule) => matchesBranch(rule.name, branch)));
  }

  /**
   * GitLab's Projects::ProtectDefaultBranchService: the default branch, pushed for the first time, is protected
   * with DEFAULT_BRANCH_PROTECTION unless a rule already covers it. Runs inside the transaction recording the push.
   */
  async protectDefaultBranch(tx: Prisma.TransactionClient, projectId: number, branch: string): Promise<void> {
    const rules = await tx.protectedBranch.findMany({ where: { projectId }, select: { name: true } });
    if (rules.some((rule) => matchesBranch(rule.name, branch))) return;
    await tx.protectedBranch.create({
      data: {
        projectId,
        name: branch,
        allowForcePush: DEFAULT_BRANCH_PROTECTION.allowForcePush,
        accessLevels: {
          create: [
            { action: 'push', accessLevel: DEFAULT_BRANCH_PROTECTION.push },
            { action: 'merge', accessLevel: DEFAULT_BRANCH_PROTECTION.merge },
          ],
        },
      },
    });
  }

  /** GitLab's `find_by!(name:)`: its RecordNotFound answers `404 Not found`. */
  private async named(project: ProjectRow, name: string): Promise<ProtectedBranchRow> {
    const rule = await this.base.db.protectedBranch.findUnique({ where: { projectId_name: { projectId: project.id, name } }, ...WITH_LEVELS });
    if (!rule) throw recordNotFound();
    return rule;
  }
}
