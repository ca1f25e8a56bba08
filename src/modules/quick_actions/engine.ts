/**
 * The quick actions engine (GitLab's QuickActions::InterpretService over Gitlab::QuickActions::Dsl and
 * CommandDefinition): each command is a definition with its names, the kinds of target it serves, a condition
 * (`available`), an optional argument parser, an action that records updates in GitLab's parameter names
 * (`state_event`, `add_label_ids`, …) and a message. Interpreting a text runs the extractor with every command's
 * names, then each command found in order; a command whose condition fails records nothing and says GitLab's
 * "Could not apply <name> command.". The updates are applied afterwards by the target's own services (service.ts).
 */
import type { Access } from '../../auth/policy.js';
import type { EpicRow } from '../epics/service.js';
import type { IssueRow } from '../issues/service.js';
import type { MergeRequestRow } from '../merge_requests/service.js';
import type { Loaders, Services } from '../module.js';
import type { LabelRow } from '../labels/service.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { ProjectRow } from '../projects/service.js';
import { extractCommands } from './extractor.js';

/** What commands act on: an issue, a merge request or an epic; the row is null while it is being created. */
export type Target =
  | { type: 'Issue'; project: ProjectRow; issue: IssueRow | null }
  | { type: 'MergeRequest'; project: ProjectRow; mergeRequest: MergeRequestRow | null }
  | { type: 'Epic'; group: NamespaceRow; epic: EpicRow | null };

export type TargetType = Target['type'];

/** The updates commands ask for, by GitLab's parameter names (what REST shows as a note's `commands_changes`). */
export type Updates = Record<string, unknown>;

/** Parameters of the request besides the commands' text (GitLab's InterpretService `params`). */
export interface QuickActionParams {
  mergeRequestDiffHeadSha?: string | null;
}

/** One interpretation's state: its target, the request's services and policy, and what the commands recorded. */
export class Run {
  readonly updates: Updates = {};
  /** Messages commands set for themselves (InterpretService's `@execution_message`), by command name. */
  readonly messages = new Map<string, string>();
  /** Titles of the labels commands named, by id (merge requests and epics take labels by title). */
  readonly labelTitles = new Map<number, string>();
  /** What the request passed beside the text (the Notes API's `merge_request_diff_head_sha`, read by `/merge`). */
  params: QuickActionParams = {};
  constructor(
    readonly target: Target,
    readonly services: Services,
    readonly access: Access,
    readonly loaders: Loaders,
    readonly viewerId: number,
  ) {}

  /** The target's labels now (none while it is being created). */
  async labels(): Promise<LabelRow[]> {
    const t = this.target;
    if (t.type === 'Issue') return t.issue ? this.loaders.issues.labels.load(t.issue.id) : [];
    if (t.type === 'MergeRequest') return t.mergeRequest ? this.loaders.merge_requests.labels.load(t.mergeRequest.id) : [];
    return t.epic ? this.loaders.epics.labels.load(t.epic.id) : [];
  }

  /** Whether the target's project (or group) has labels to use (GitLab's `find_labels.any?`). */
  hasLabelsToUse(): Promise<boolean> {
    return this.memo('labels', async () => {
      const t = this.target;
      const page = await this.services.labels.list(t.type === 'Epic' ? { group: t.group } : { project: t.project }, {}, { first: 1 });
      return (await page.nodes).length > 0;
    });
  }

  /** The target's assignees' ids (issues and merge requests). */
  assigneeIds(): number[] {
    const t = this.target;
    if (t.type === 'Issue') return t.issue?.assignees.map((a) => a.userId) ?? [];
    if (t.type === 'MergeRequest') return t.mergeRequest?.assignees.map((a) => a.userId) ?? [];
    return [];
  }

  get persisted(): boolean {
    return this.row !== null;
  }

  get row(): IssueRow | MergeRequestRow | EpicRow | null {
    const t = this.target;
    return t.type === 'Issue' ? t.issue : t.type === 'MergeRequest' ? t.mergeRequest : t.epic;
  }

  /** GitLab's `target_issuable_name`: `issue`, `merge request`, `epic`. */
  get noun(): string {
    return this.target.type === 'MergeRequest' ? 'merge request' : this.target.type.toLowerCase();
  }

  private cache = new Map<string, Promise<boolean>>();

  /** Whether the viewer has `update_<target>` (an epic's update is `admin_epic`). */
  canUpdate(): Promise<boolean> {
    return this.memo('update', async () => {
      const t = this.target;
      if (t.type === 'Issue') return !!t.issue && this.access.can('update_issue', await this.services.issues.subject(t.issue));
      if (t.type === 'MergeRequest') return !!t.mergeRequest && this.access.can('update_merge_request', await this.services.merge_requests.subject(t.mergeRequest));
      return !!t.epic && this.access.can('admin_epic', await this.services.epics.subject(t.epic));
    });
  }

  /** Whether the viewer has `set_<target>_metadata`: on the project for a new issuable, `admin_<target>` on an existing one. */
  canSetMetadata(): Promise<boolean> {
    return this.memo('metadata', async () => {
      const t = this.target;
      if (t.type === 'Issue') return t.issue ? this.access.can('admin_issue', await this.services.issues.subject(t.issue)) : this.access.can('set_issue_metadata', t.project);
      if (t.type === 'MergeRequest') {
        return t.mergeRequest ? this.access.can('admin_merge_request', await this.services.merge_requests.subject(t.mergeRequest)) : this.access.can('set_merge_request_metadata', t.project);
      }
      return t.epic ? this.access.can('admin_epic', await this.services.epics.subject(t.epic)) : this.access.can('create_epic', t.group);
    });
  }

  memo(key: string, compute: () => Promise<boolean>): Promise<boolean> {
    let value = this.cache.get(key);
    if (!value) this.cache.set(key, (value = compute()));
    return value;
  }
}

/** How a command takes its argument (the arity of GitLab's action block): none, optional, or required. */
export type Takes = 'none' | 'optional' | 'required';

export interface Command<P = string> {
  name: string;
  aliases?: readonly string[];
  types: readonly TargetType[];
  takes: Takes;
  /** GitLab's `condition`: whether the viewer may run it on this target now. */
  available(run: Run): Promise<boolean> | boolean;
  /** GitLab's `parse_params`, given the argument when there is one. */
  parse?(run: Run, arg: string): Promise<P> | P;
  /** GitLab's action block: records updates (and messages of its own). */
  execute(run: Run, param: P | undefined): Promise<void> | void;
  /** GitLab's `execution_message`. */
  message?: string | ((run: Run, param: P | undefined) => Promise<string | null | undefined> | string | null | undefined);
}

/** A command of any argument type, as the table holds them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyCommand = Command<any>;

/** Defines one command (the DSL's `desc … command :name do … end`). */
export const command = <P = string>(definition: Command<P>): Command<P> => definition;

/** What interpreting a text gave. */
export interface Interpretation {
  /** The text without its commands. */
  content: string;
  updates: Updates;
  /** The commands' messages, joined by spaces; empty when none said anything. */
  message: string;
  /** The names of the commands found, as written. */
  commandNames: string[];
  /** How many commands were found (InterpretService's commands_executed_count). */
  count: number;
}

/** The substitutions of issuables (GitLab's IssuableActions: `substitution :shrug`, `:tableflip`), in their order. */
const SUBSTITUTIONS: Readonly<Record<string, string>> = { shrug: '¯\\＿(ツ)＿/¯', tableflip: '(╯°□°)╯︵ ┻━┻' };
const ISSUABLE = ['Issue', 'MergeRequest', 'Epic'] as const;

/**
 * Runs the commands of a text against a target (InterpretService#execute): the text without them, the updates they
 * recorded, their messages and their names.
 */
export async function interpret(definitions: readonly AnyCommand[], run: Run, text: string): Promise<Interpretation> {
  const served = definitions.filter((d) => d.types.includes(run.target.type));
  const byName = new Map<string, AnyCommand>();
  for (const d of served) for (const name of [d.name, ...(d.aliases ?? [])]) byName.set(name, d);
  const issuable = (ISSUABLE as readonly string[]).includes(run.target.type);
  const { content, commands, substituted } = extractCommands(text, [...byName.keys()], issuable ? SUBSTITUTIONS : {});
  const messages: string[] = [];
  for (const found of commands) {
    const definition = byName.get(found.name)!;
    const runs = found.arg !== null || definition.takes !== 'required';
    if (!(await definition.available(run))) {
      messages.push(`Could not apply ${definition.name} command.`);
      continue;
    }
    if (!runs) continue;
    const param = found.arg !== null ? (definition.parse ? await definition.parse(run, found.arg) : found.arg) : undefined;
    await definition.execute(run, param);
    const own = run.messages.get(definition.name);
    run.messages.delete(definition.name);
    const said = own ?? (typeof definition.message === 'function' ? await definition.message(run, param) : definition.message);
    if (said) messages.push(said);
  }
  const names = [...commands, ...substituted].map((c) => c.name);
  return { content, updates: run.updates, message: messages.join(' '), commandNames: names, count: names.length };
}
