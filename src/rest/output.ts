/**
 * Per-request response shaping: applies an operation's output plan (made once at start-up by compile.ts) to its
 * result: enum values to REST strings, BigInt strings to numbers (REST's JSON has numbers where GraphQL's BigInt has strings), `@number`, `@date`, `@boolean`, `@twoDecimals`, `@omitIfNull`, `@unwrap`, `@spread`, `@copy`. Only the branches that need work are walked.
 */
import type { GraphQLEnumType } from 'graphql';

/** What to do at one key of the result; `children` apply inside it. */
export interface OutputPlan {
  key: string;
  enumType?: GraphQLEnumType;
  /** A BigInt, or an ID under `@number`: GraphQL's string, REST's number. */
  number?: boolean;
  /** `@date`: a Time shown as `YYYY-MM-DD`. */
  date?: boolean;
  /** `@twoDecimals`: a Float shown as a string with two decimals (Ruby's `'%.2f' %`). */
  twoDecimals?: boolean;
  /** `@boolean`: a String `true`/`false` shown as a boolean. */
  boolean?: boolean;
  omitIfNull: boolean;
  unwrap: boolean;
  spread: boolean;
  /**
   * `@copy`: the value shaped at the sibling key `of` (its list's first item with `first`), only its `keys` where
   * given (the field's own value is a placeholder).
   */
  copy?: { of: string; keys?: readonly string[]; first?: boolean };
  /**
   * An abstract field whose object-type branches answered their keys prefixed (compile.ts, separateBranches): its
   * children are kept whole and marked (markBranched), and the prefixes taken off where they apply, the route's own
   * result included.
   */
  unprefix?: boolean;
  children: OutputPlan[];
}

/** What a branch's keys start with, before its type name and `__` (no REST key starts so). */
export const BRANCH_PREFIX = '_on_';

/** The plan lists (an `unprefix` field's children) whose object's keys come prefixed by branch. */
const branched = new WeakSet<OutputPlan[]>();

/** Marks the children of every `unprefix` plan in the tree (once, at start-up, on the final plans). */
export function markBranched(plans: OutputPlan[]): void {
  for (const plan of plans) {
    if (plan.unprefix) branched.add(plan.children);
    markBranched(plan.children);
  }
}

/** An object's keys without their branch prefixes, in order. */
function unprefixed(value: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const cut = k.startsWith(BRANCH_PREFIX) ? k.indexOf('__', BRANCH_PREFIX.length) : -1;
    out[cut < 0 ? k : k.slice(cut + 2)] = v;
  }
  return out;
}

/** Applies an output plan in place (returns the new value where an object had to be rebuilt). */
export function applyOutput(value: unknown, plans: OutputPlan[]): unknown {
  if (value === null || value === undefined || !plans.length) return value;
  if (Array.isArray(value)) return value.map((item) => applyOutput(item, plans));
  if (typeof value !== 'object') return value;
  const obj = value as Record<string, unknown>;
  let rebuild = false;
  let copies = false;
  for (const plan of plans) {
    if (plan.copy) {
      copies = true;
      continue;
    }
    const v = obj[plan.key];
    if (v === null || v === undefined) {
      // JSON leaves out an undefined value; `delete` would turn the object into a slow dictionary for the serialiser.
      // A null that spreads spreads nothing: its key goes too.
      if (plan.omitIfNull || plan.spread) obj[plan.key] = undefined;
      continue;
    }
    if (plan.enumType) {
      const enumType = plan.enumType;
      const toRest = (name: unknown) => enumType.getValue(String(name))?.value ?? name;
      obj[plan.key] = Array.isArray(v) ? v.map(toRest) : toRest(v);
      continue;
    }
    if (plan.number) {
      obj[plan.key] = Array.isArray(v) ? v.map(Number) : Number(v);
      continue;
    }
    if (plan.date) {
      obj[plan.key] = String(v).slice(0, 10);
      continue;
    }
    if (plan.twoDecimals) {
      obj[plan.key] = Number(v).toFixed(2);
      continue;
    }
    if (plan.boolean) {
      obj[plan.key] = v === 'true' || v === true;
      continue;
    }
    const inner = applyOutput(v, plan.children);
    if (plan.unwrap) {
      const only = plan.children[0]?.key;
      const pick = (o: unknown) => (o && typeof o === 'object' && only ? (o as Record<string, unknown>)[only] : o);
      obj[plan.key] = Array.isArray(inner) ? inner.map(pick) : pick(inner);
    } else {
      obj[plan.key] = inner;
    }
    if (plan.spread) rebuild = true;
  }
  // After the loop, so that a copy is of the shaped value.
  if (copies) {
    for (const plan of plans) {
      // Only where its placeholder was answered: a union's other members never selected it.
      if (!plan.copy || !(plan.key in obj)) continue;
      const value = obj[plan.copy.of];
      obj[plan.key] = copyOf(plan.copy.first ? (Array.isArray(value) ? value[0] ?? null : null) : value, plan.copy.keys);
    }
  }
  if (!rebuild) return branched.has(plans) ? unprefixed(obj) : obj;
  // Spread keys take the place of the field that held them, so the REST key order reads naturally.
  const spreads = spreadKeys(plans);
  const out: Record<string, unknown> = {};
  for (const k in obj) {
    const v = obj[k];
    if (!spreads.has(k)) out[k] = v;
    else if (v && typeof v === 'object') Object.assign(out, v);
  }
  return branched.has(plans) ? unprefixed(out) : out;
}

/** The keys of a list of plans that spread, worked out once per list (plans are made once, at start-up). */
const spreadKeysOf = new WeakMap<OutputPlan[], Set<string>>();

function spreadKeys(plans: OutputPlan[]): Set<string> {
  let keys = spreadKeysOf.get(plans);
  if (!keys) spreadKeysOf.set(plans, (keys = new Set(plans.filter((p) => p.spread).map((p) => p.key))));
  return keys;
}

function copyOf(value: unknown, keys: readonly string[] | undefined): unknown {
  if (value === undefined) return null;
  if (!keys || value === null || typeof value !== 'object') return value;
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of keys) if (key in source) out[key] = source[key];
  return out;
}
