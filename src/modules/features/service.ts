/**
 * Instance feature flags (GitLab's Features API over Flipper's `features` and `feature_gates`) and the experiment
 * registry built on them (ee/lib/api/experiments.rb). Setting a gate follows Admin::SetFeatureFlagService: `true`,
 * `100` enable and `false`, `0` disable (for the targets named, else the whole flag), any other number is a
 * percentage of time, or of actors with `key`; Flipper's adapter rules hold (enabling or disabling the whole flag
 * clears its other gates, a percentage replaces the previous one, a target adds to or leaves its set).
 */
import type { Prisma } from '../../db/database.js';
import { argumentRefused, badRequest, mutuallyExclusive } from '../../errors.js';
import { hashedPath } from '../../git/storages.js';
import type { ServiceBase } from '../module.js';
import type { NamespacesService } from '../namespaces/service.js';
import type { ProjectsService } from '../projects/service.js';
import type { UsersService } from '../users/service.js';
import { DEFINITIONS, type FeatureDefinition } from './definitions.js';
import { gateValues, shownGates, stateOf, type FeatureState, type GateRow, type ShownGate } from './gates.js';

/** A flag as the API shows it. */
export interface FeatureView {
  name: string;
  state: FeatureState;
  gates: ShownGate[];
  definition: FeatureDefinition | null;
}

/** An experiment as GitLab's Entities::Experiment shows it. */
export interface ExperimentView {
  key: string;
  definition: FeatureDefinition;
  currentStatus: { state: FeatureState; gates: ShownGate[] };
}

/** The parameters of `POST /features/:name`. */
export interface FeatureSetArgs {
  name: string;
  value: unknown;
  key?: string | null;
  featureGroup?: string | null;
  user?: string | null;
  group?: string | null;
  namespace?: string | null;
  project?: string | null;
  repository?: string | null;
  force?: boolean | null;
}

/** The Flipper groups registered (GitLab EE's register_feature_groups). */
const FEATURE_GROUPS: ReadonlySet<string> = new Set(['gitlab_team_members']);
const TARGET_PARAMS = ['featureGroup', 'user', 'group', 'namespace', 'project', 'repository'] as const;
const SNAKE: Record<(typeof TARGET_PARAMS)[number], string> = { featureGroup: 'feature_group', user: 'user', group: 'group', namespace: 'namespace', project: 'project', repository: 'repository' };

/** A gate a target sits in: an actor's flipper ID, or a feature group's name. */
interface Target {
  gate: 'actors' | 'groups';
  value: string;
}

/** GitLab's `400 Bad request - <reason>` (bad_request! with the service's message). */
const refusal = (reason: string) => badRequest(`400 Bad request - ${reason}`);
/** Ruby's String#inspect, as GitLab's messages quote values. */
const inspect = (text: string) => JSON.stringify(text);
const NUMERIC = /^\d+(\.\d+)?$/;

export class FeaturesService {
  constructor(
    private readonly base: ServiceBase,
    private readonly users: UsersService,
    private readonly namespaces: NamespacesService,
    private readonly projects: ProjectsService,
  ) {}

  /** Every persisted flag, oldest first (Feature.all). */
  async list(): Promise<FeatureView[]> {
    await this.base.access.authorize('read_feature_flags', null);
    const features = await this.base.db.feature.findMany({ orderBy: { id: 'asc' }, include: { gates: { orderBy: { id: 'asc' } } } });
    return features.map((f) => this.view(f.key, f.gates));
  }

  /** Every definition (Feature::Definition.definitions). */
  async definitions(): Promise<FeatureDefinition[]> {
    await this.base.access.authorize('read_feature_flags', null);
    return [...DEFINITIONS.values()];
  }

  /** The experiment registry: every definition of type `experiment` with its flag's state. */
  async experiments(): Promise<ExperimentView[]> {
    this.base.access.requireViewer();
    const teamPath = this.base.app.config.experimentsTeamGroup;
    const group = teamPath ? await this.namespaces.lookup({ path: teamPath }) : null;
    await this.base.access.authorize('read_experiments', { group: group?.kind === 'group' ? group : null });
    const experiments = [...DEFINITIONS.values()].filter((d) => d.type === 'experiment');
    const rows = await this.base.db.featureGate.findMany({ where: { featureKey: { in: experiments.map((d) => d.name) } }, orderBy: { id: 'asc' } });
    return experiments.map((definition) => {
      const values = gateValues(rows.filter((r) => r.featureKey === definition.name));
      return {
        key: definition.name.replace(/_experiment_percentage$/, ''),
        definition,
        currentStatus: { state: stateOf(values), gates: shownGates(values) },
      };
    });
  }

  /** Sets a gate of the flag, creating the flag when it is new; answers the flag after the change. */
  async set(args: FeatureSetArgs): Promise<FeatureView> {
    await this.base.access.authorize('admin_feature_flags', null);
    const value = valueText(args.value);
    const key = args.key ?? null;
    if (key !== null) {
      const clash = TARGET_PARAMS.find((p) => args[p] != null);
      if (clash) throw mutuallyExclusive('key', SNAKE[clash]);
    }
    const targeted = TARGET_PARAMS.some((p) => args[p] != null);
    const targets = targeted ? await this.targets(args) : [];
    const name = args.name;
    const enable = ['100', '100.0', 'true'].includes(value);
    const disable = ['0', '0.0', 'false'].includes(value);
    return this.base.db.$transaction(async (tx) => {
      // The flag's row, locked until commit: writes to one flag run one after the other.
      await tx.feature.upsert({ where: { key: name }, create: { key: name }, update: { updatedAt: new Date() } });
      const rows = await tx.featureGate.findMany({ where: { featureKey: name }, orderBy: { id: 'asc' } });
      if (targeted) await this.setTargets(tx, name, value, targets, rows);
      else if (enable || disable) {
        await tx.featureGate.deleteMany({ where: { featureKey: name } });
        if (enable) await tx.featureGate.create({ data: { featureKey: name, key: 'boolean', value: 'true' } });
      } else {
        const gate = key === 'percentage_of_actors' ? 'percentage_of_actors' : key === 'percentage_of_time' || (key === null && NUMERIC.test(value)) ? 'percentage_of_time' : null;
        if (!gate) throw refusal(key !== null ? `Cannot set '${name}' (${inspect(key)}) to ${inspect(value)}` : `Cannot set '${name}' to ${inspect(value)}`);
        if (!NUMERIC.test(value)) throw refusal('Not a percentage');
        if (Number(value) > 100) throw refusal('Percentage must be between 0 and 100');
        if (stateOf(gateValues(rows)) === 'on') {
          throw refusal(`Cannot enable percentage of ${gate === 'percentage_of_actors' ? 'actors' : 'time'} for a fully-enabled flag`);
        }
        await tx.featureGate.deleteMany({ where: { featureKey: name, key: gate } });
        await tx.featureGate.create({ data: { featureKey: name, key: gate, value: String(Number(value)) } });
      }
      return this.view(name, await tx.featureGate.findMany({ where: { featureKey: name }, orderBy: { id: 'asc' } }));
    });
  }

  /** Removes the flag and its gates; answers it as it was, or null when it was not persisted (Feature.remove). */
  async remove(name: string): Promise<FeatureView | null> {
    await this.base.access.authorize('admin_feature_flags', null);
    const feature = await this.base.db.feature.findUnique({ where: { key: name }, include: { gates: { orderBy: { id: 'asc' } } } });
    if (!feature) return null;
    await this.base.db.feature.deleteMany({ where: { key: name } });
    return this.view(feature.key, feature.gates);
  }

  private view(name: string, rows: readonly GateRow[]): FeatureView {
    const values = gateValues(rows);
    return { name, state: stateOf(values), gates: shownGates(values), definition: DEFINITIONS.get(name) ?? null };
  }

  /** SetFeatureFlagService#update_targets: each target enabled, disabled, opted out or its opt-out removed. */
  private async setTargets(tx: Prisma.TransactionClient, name: string, value: string, targets: Target[], rows: readonly GateRow[]): Promise<void> {
    const has = (gate: string, member: string) => rows.some((r) => r.key === gate && r.value === member);
    for (const target of targets) {
      const optOut = `${target.value}:opt_out`;
      if (['100', '100.0', 'true'].includes(value)) {
        if (target.gate === 'actors' && has('actors', optOut)) throw refusal(`Opt-out exists for ${target.value} - remove opt-out before enabling`);
        await tx.featureGate.createMany({ data: [{ featureKey: name, key: target.gate, value: target.value }], skipDuplicates: true });
      } else if (['0', '0.0', 'false'].includes(value)) {
        await tx.featureGate.deleteMany({ where: { featureKey: name, key: target.gate, value: target.value } });
      } else if (value === 'opt_out') {
        // Feature groups cannot opt out (GitLab ignores them).
        if (target.gate === 'actors') await tx.featureGate.createMany({ data: [{ featureKey: name, key: 'actors', value: optOut }], skipDuplicates: true });
      } else if (value === 'remove_opt_out') {
        if (target.gate !== 'actors') continue;
        if (!has('actors', optOut)) throw refusal(`No opt-out exists for ${target.value}`);
        await tx.featureGate.deleteMany({ where: { featureKey: name, key: 'actors', value: optOut } });
      } else {
        throw refusal(`Cannot set '${name}' to ${inspect(value)} for ${target.value}`);
      }
    }
  }

  /** Feature::Target#targets: the feature group, then users, projects, groups, namespaces and repositories named. */
  private async targets(args: FeatureSetArgs): Promise<Target[]> {
    const each = (text: string | null | undefined) => (text == null ? [] : text.split(',').filter((t) => t !== ''));
    const unknown = (arg: string) => refusal(`${arg} is not found!`);
    const targets: Target[] = [];
    if (args.featureGroup != null) {
      if (!FEATURE_GROUPS.has(args.featureGroup)) throw refusal(`Group :${args.featureGroup} has not been registered`);
      targets.push({ gate: 'groups', value: args.featureGroup });
    }
    for (const arg of each(args.user)) {
      const user = await this.users.find({ path: arg });
      if (!user) throw unknown(arg);
      targets.push({ gate: 'actors', value: `User:${user.id}` });
    }
    for (const arg of each(args.project)) {
      const project = await this.projects.find({ path: arg });
      if (!project) throw unknown(arg);
      targets.push({ gate: 'actors', value: `Project:${project.id}` });
    }
    for (const arg of each(args.group)) {
      const group = await this.namespaces.lookup({ path: arg });
      if (!group || group.kind !== 'group') throw unknown(arg);
      targets.push({ gate: 'actors', value: `Group:${group.id}` });
    }
    for (const arg of each(args.namespace)) {
      const namespace = await this.namespaces.lookup({ path: arg });
      if (!namespace) throw unknown(arg);
      targets.push({ gate: 'actors', value: `${namespace.kind === 'group' ? 'Group' : 'Namespaces::UserNamespace'}:${namespace.id}` });
    }
    for (const arg of each(args.repository)) {
      // Gitlab::RepoPath.parse: a project's repository (`group/project.git`) or its wiki (`.wiki.git`).
      const wiki = arg.endsWith('.wiki.git');
      const project = arg.endsWith('.git') ? await this.projects.find({ path: arg.replace(/(\.wiki)?\.git$/, '') }) : null;
      if (!project) throw unknown(arg);
      const relative = hashedPath(project.id);
      targets.push({ gate: 'actors', value: `Repository:${wiki ? relative.replace(/\.git$/, '.wiki.git') : relative}` });
    }
    return targets;
  }
}

/** The `value` parameter as the text GitLab's service compares (Grape's String coercion of a JSON value). */
function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return String(value);
  throw argumentRefused('value', 'is invalid');
}
