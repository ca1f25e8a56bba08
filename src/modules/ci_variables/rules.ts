/**
 * The rules of a CI/CD variable as GitLab's models state them (Ci::HasVariable, Ci::Maskable, Ci::HidableVariable,
 * HasEnvironmentScope, Limitable, Ci::InstanceVariable), with their words, and GitLab's wildcard match of an
 * environment scope. Pure functions: the service feeds them what the database knows.
 */

export type VariableOwnerKind = 'instance' | 'group' | 'project';

/** What a variable will be once saved: the fields its validations read. */
export interface VariableDraft {
  key: string;
  value: string;
  masked: boolean;
  hidden: boolean;
  raw: boolean;
  environmentScope: string;
  description: string | null;
}

/** What validating a draft needs from the database. */
export interface ValidationFacts {
  /** The saved variable an update changes; absent on create. */
  previous?: { masked: boolean; hidden: boolean };
  /** Another variable of the owner has this key in this environment scope. */
  taken: boolean;
  /** On create: the owner already holds as many variables as its limit allows. */
  atLimit: boolean;
}

/**
 * GitLab's default plan limits (`project_ci_variables`, `group_ci_variables`, `ci_instance_level_variables`). GitLab
 * lets an administrator change them; here they are fixed.
 */
export const VARIABLE_LIMITS: Record<VariableOwnerKind, { name: string; count: number }> = {
  project: { name: 'project ci variables', count: 8000 },
  group: { name: 'group ci variables', count: 30000 },
  instance: { name: 'ci instance level variables', count: 25 },
};

const MAX_KEY = 255;
const MAX_DESCRIPTION = 255;
const MAX_INSTANCE_VALUE = 10_000;
/** GitLab's column is a varchar(255), which PostgreSQL refuses past that with a 500; here it is a validation. */
const MAX_ENVIRONMENT_SCOPE = 255;

const KEY_FORMAT = /^[a-zA-Z0-9_]+$/;
/** Gitlab::Regex.environment_scope_regex: letters, digits, `-_/${}.*` and spaces. */
const ENVIRONMENT_SCOPE_FORMAT = /^[a-zA-Z0-9_/${}. *-]+$/;

/**
 * Ci::Maskable as current GitLab has it (app/models/concerns/ci/maskable.rb, REGEX and MASK_AND_RAW_REGEX; the raw
 * relaxation shipped behind `ci_remove_character_limitation_raw_masked_var` and is now unconditional): a masked
 * value is a single line of at least 8 characters; an expanded one (`raw` false) only from the Base64 alphabet plus
 * `@ : . ~ -`, a raw one any characters but whitespace. Ruby's `\S` excludes only ASCII whitespace, hence the class.
 */
const MASKABLE_EXPANDED = /^[a-zA-Z0-9_+=/@:.~-]{8,}$/u;
const MASKABLE_RAW = /^[^ \t\n\v\f\r]{8,}$/u;

/** Whether GitLab accepts this value for a masked variable (and so whether a runner can mask it in a trace). */
export function isMaskable(value: string, raw = false): boolean {
  return (raw ? MASKABLE_RAW : MASKABLE_EXPANDED).test(value);
}

/** Ruby's String#strip, which GitLab applies to a key and an environment scope before validating them. */
export function strip(text: string): string {
  return text.replace(/^[\0\t\n\v\f\r ]+|[\0\t\n\v\f\r ]+$/g, '');
}

/** Length in characters, as Ruby counts them: code points, so a surrogate pair is one. */
function length(text: string): number {
  return text.length - (text.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0);
}

/** Ruby's `blank?` for a string: empty or only whitespace. */
export const isBlank = (text: string) => /^\s*$/.test(text);
const tooLong = (max: number) => `is too long (maximum is ${max} characters)`;

/** ActiveModel's errors, in the order GitLab's validators add them (the first message of a field fixes its place). */
class Errors {
  readonly fields: Record<string, string[]> = {};
  add(field: string, message: string): void {
    (this.fields[field] ??= []).push(message);
  }
  get any(): boolean {
    return Object.keys(this.fields).length > 0;
  }
}

/**
 * The validation errors of a draft by field (GraphQL names; `base` for the record), in GitLab's words and order;
 * null when it may be saved.
 */
export function validationErrors(kind: VariableOwnerKind, draft: VariableDraft, facts: ValidationFacts): Record<string, string[]> | null {
  const errors = new Errors();
  // Ci::HasVariable
  if (isBlank(draft.key)) errors.add('key', "can't be blank");
  if (length(draft.key) > MAX_KEY) errors.add('key', tooLong(MAX_KEY));
  if (!KEY_FORMAT.test(draft.key)) errors.add('key', "can contain only letters, digits and '_'.");
  // Ci::Maskable
  if (draft.masked && !isMaskable(draft.value, draft.raw)) errors.add('value', 'is invalid');
  // Ci::HidableVariable: hidden is set once, at creation, and then fixes `masked`.
  if (kind !== 'instance' && facts.previous?.hidden && draft.masked !== facts.previous.masked) {
    errors.add('base', 'The visibility setting cannot be changed for masked and hidden variables.');
  }
  // Limitable, on create only.
  if (!facts.previous && facts.atLimit) {
    const limit = VARIABLE_LIMITS[kind];
    errors.add('base', `Maximum number of ${limit.name} (${limit.count}) exceeded`);
  }
  // HasEnvironmentScope (project and group variables).
  if (kind !== 'instance') {
    if (isBlank(draft.environmentScope)) errors.add('environmentScope', "can't be blank");
    if (length(draft.environmentScope) > MAX_ENVIRONMENT_SCOPE) errors.add('environmentScope', tooLong(MAX_ENVIRONMENT_SCOPE));
    if (!ENVIRONMENT_SCOPE_FORMAT.test(draft.environmentScope)) {
      errors.add('environmentScope', "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces");
    }
  }
  if (draft.description && length(draft.description) > MAX_DESCRIPTION) errors.add('description', tooLong(MAX_DESCRIPTION));
  if (facts.taken) errors.add('key', `(${draft.key}) has already been taken`);
  if (kind === 'instance' && length(draft.value) > MAX_INSTANCE_VALUE) {
    errors.add('value', `The value of the provided variable exceeds the ${MAX_INSTANCE_VALUE} character limit`);
  }
  return errors.any ? errors.fields : null;
}

/**
 * GitLab's HasEnvironmentScope.on_environment: `*` matches every environment, any other scope matches the name
 * itself or, with `*` as a wildcard for any run of characters (`/` included), the names it spells. A linear scan
 * with one backtrack point, so no scope costs more than its length times the name's.
 */
export function scopeMatches(scope: string, environment: string): boolean {
  let s = 0;
  let e = 0;
  let star = -1;
  let resume = 0;
  while (e < environment.length) {
    if (s < scope.length && scope[s] === '*') {
      star = s++;
      resume = e;
    } else if (s < scope.length && scope[s] === environment[e]) {
      s++;
      e++;
    } else if (star >= 0) {
      s = star + 1;
      e = ++resume;
    } else {
      return false;
    }
  }
  while (scope[s] === '*') s++;
  return s === scope.length;
}

/**
 * How closely a matching scope names the environment, higher first: GitLab orders the exact name over wildcard
 * scopes over `*`; among wildcard scopes (which GitLab leaves in database order) the one spelling more characters.
 */
export function scopeSpecificity(scope: string, environment: string): number {
  if (scope === environment) return Number.MAX_SAFE_INTEGER;
  if (scope === '*') return 0;
  return 1 + scope.replaceAll('*', '').length;
}
