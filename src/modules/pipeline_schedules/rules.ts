/**
 * The rules of a pipeline schedule and its variables as GitLab's models state them (Ci::PipelineSchedule with its
 * cron validators, Ci::PipelineScheduleVariable with Ci::HasVariable), in GitLab's words. Pure functions.
 */
import { checkSchedule, nextRun, parseCron, resolveTimeZone } from '../../ci/cron.js';
import { isBlank, strip } from '../ci_variables/rules.js';
import { invalid } from '../../errors.js';
import { parseInputValue } from '../pipelines/inputs.js';

/** GitLab's VALID_REF_FORMAT_REGEX: a full branch or tag ref, kept as given. */
export const FULL_REF = /^(refs\/tags\/|refs\/heads\/)\S+$/;
/** Longest ref looked up in the repository; longer ones name nothing (and would not fit a git command line). */
export const MAX_REF_LENGTH = 1024;
/** Our bound on a description (GitLab's column has none; a schedule list should not carry megabytes). */
const MAX_DESCRIPTION = 255;
const MAX_KEY = 255;
const KEY_FORMAT = /^[a-zA-Z0-9_]+$/;

export const DEFAULT_TIME_ZONE = 'UTC';

const tooLong = (max: number) => `is too long (maximum is ${max} characters)`;

/** What a schedule will be once saved: the fields its validations read. */
export interface ScheduleDraft {
  description: string;
  cron: string;
  cronTimezone: string;
}

/** Validation errors of a schedule by field (GraphQL names), in GitLab's words; null when it may be saved. */
export function scheduleErrors(draft: ScheduleDraft): Record<string, string[]> | null {
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  const checked = checkSchedule(draft.cron, draft.cronTimezone);
  if ('errors' in checked) for (const [field, messages] of Object.entries(checked.errors)) for (const m of messages) add(field, m);
  if (isBlank(draft.description)) add('description', "can't be blank");
  if ([...draft.description].length > MAX_DESCRIPTION) add('description', tooLong(MAX_DESCRIPTION));
  return Object.keys(errors).length ? errors : null;
}

/** When a (validated) schedule next falls due after `now`, in its zone; null when its cron or zone no longer parse. */
export function nextRunAt(cronText: string, zoneName: string, now: Date): Date | null {
  const cron = parseCron(cronText);
  const zone = resolveTimeZone(zoneName);
  return cron && zone ? nextRun(cron, zone, now) : null;
}

/** A schedule variable's key as GitLab saves it (stripped) with its validation errors (null when none). */
export function variableKeyErrors(rawKey: string, taken: (key: string) => boolean): { key: string; errors: Record<string, string[]> | null } {
  const key = strip(rawKey);
  const messages: string[] = [];
  if (isBlank(key)) messages.push("can't be blank");
  if ([...key].length > MAX_KEY) messages.push(tooLong(MAX_KEY));
  if (!KEY_FORMAT.test(key)) messages.push("can contain only letters, digits and '_'.");
  if (messages.length === 0 && taken(key)) messages.push('has already been taken');
  return { key, errors: messages.length ? { key: messages } : null };
}

/** The short name of a full ref (`refs/heads/main` → `main`). */
export function shortRef(ref: string): string {
  return ref.replace(/^refs\/(heads|tags)\//, '');
}

/** One input of a schedule as stored (GitLab's Ci::PipelineScheduleInput): a name and its value. */
export interface StoredInput {
  name: string;
  value: unknown;
}

/** An input given to a create or update: added, or changed by name, or with `destroy` removed. */
export interface ScheduleInputChange {
  name: string;
  value: unknown;
  destroy?: boolean | null;
}

/** The schedule's inputs as stored, in order. */
export function storedInputs(schedule: { inputs: unknown }): StoredInput[] {
  return Array.isArray(schedule.inputs) ? (schedule.inputs as StoredInput[]) : [];
}

/**
 * The inputs after the changes (Rails' nested attributes, matched by name): a value given as text (a form
 * parameter) is read as GitLab's Inputs.parse_params reads it; a blank name is the input's validation error.
 */
export function mergeInputs(existing: readonly StoredInput[], changes: readonly ScheduleInputChange[]): StoredInput[] {
  const out = existing.map((input) => ({ ...input }));
  for (const change of changes) {
    const name = change.name.trim();
    if (!name) throw invalid({ inputs: ["name can't be blank"] });
    const at = out.findIndex((input) => input.name === name);
    if (change.destroy) {
      if (at >= 0) out.splice(at, 1);
    } else if (at >= 0) out[at].value = parseInputValue(change.value);
    else out.push({ name, value: parseInputValue(change.value) });
  }
  return out;
}
