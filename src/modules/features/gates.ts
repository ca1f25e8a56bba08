/**
 * Flipper's gates as GitLab's Features API shows them: the values a flag's `feature_gates` rows hold, the flag's
 * state, and the gates shown (Entities::Feature leaves out percentages of zero and empty sets).
 */

/** A gate row as stored: `boolean` and the percentages hold one row, `actors` and `groups` one row per member. */
export interface GateRow {
  key: string;
  value: string;
}

/** Flipper's gate keys, in the order of Flipper::Feature#gates. */
export const GATE_KEYS = ['boolean', 'actors', 'percentage_of_actors', 'percentage_of_time', 'groups'] as const;
export type GateKey = (typeof GATE_KEYS)[number];
/** The keys whose value is a set (one row per member). */
export const SET_GATES: ReadonlySet<string> = new Set(['actors', 'groups']);

export interface GateValues {
  boolean: boolean;
  actors: string[];
  percentage_of_actors: number;
  percentage_of_time: number;
  groups: string[];
}

/** A shown gate: `{ key, value }`. */
export interface ShownGate {
  key: GateKey;
  value: boolean | number | string[];
}

export type FeatureState = 'on' | 'off' | 'conditional';

/** Flipper's typecast of a stored percentage: an integer, or a float when written with a point. */
export function percentageOf(text: string | undefined): number {
  if (text === undefined) return 0;
  const number = text.includes('.') ? Number.parseFloat(text) : Number.parseInt(text, 10);
  return Number.isFinite(number) ? number : 0;
}

/** The values of a flag's gates from its rows (in row order). */
export function gateValues(rows: readonly GateRow[]): GateValues {
  const one = (key: string) => rows.find((r) => r.key === key)?.value;
  return {
    boolean: one('boolean') === 'true',
    actors: rows.filter((r) => r.key === 'actors').map((r) => r.value),
    percentage_of_actors: percentageOf(one('percentage_of_actors')),
    percentage_of_time: percentageOf(one('percentage_of_time')),
    groups: rows.filter((r) => r.key === 'groups').map((r) => r.value),
  };
}

/** Flipper::Feature#state: on when fully enabled, conditional when any other gate lets some through, else off. */
export function stateOf(values: GateValues): FeatureState {
  if (values.boolean || values.percentage_of_time === 100) return 'on';
  if (values.actors.length > 0 || values.groups.length > 0 || values.percentage_of_actors > 0 || values.percentage_of_time > 0) return 'conditional';
  return 'off';
}

/** The gates Entities::Feature shows: every gate but percentages of zero and empty sets. */
export function shownGates(values: GateValues): ShownGate[] {
  const shown: ShownGate[] = [];
  for (const key of GATE_KEYS) {
    const value = values[key];
    if ((typeof value === 'number' && value === 0) || (Array.isArray(value) && value.length === 0)) continue;
    shown.push({ key, value });
  }
  return shown;
}
