/** The YAML definitions read at start, and Flipper's states and shown gates, without a server. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFINITIONS, readDefinition } from '../../src/modules/features/definitions.js';
import { gateValues, shownGates, stateOf } from '../../src/modules/features/gates.js';

const dir = mkdtempSync(join(tmpdir(), 'feature-definitions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, `${name}.yml`);
  writeFileSync(path, text);
  return path;
}

describe('experiment definitions', () => {
  it('are the shipped YAML files, each of type experiment, by file name', () => {
    expect([...DEFINITIONS.keys()]).toEqual([...DEFINITIONS.keys()].sort());
    expect(DEFINITIONS.size).toBeGreaterThanOrEqual(5);
    for (const definition of DEFINITIONS.values()) {
      expect(definition.type).toBe('experiment');
      expect(definition.introducedByUrl).toMatch(/^https:\/\/gitlab\.com\//);
    }
  });

  it('reads unset keys as null and refuses a file whose name, type or default_enabled is wrong', () => {
    expect(readDefinition(file('bare', 'name: bare\ntype: experiment\ndefault_enabled: true\n'), 'experiment')).toEqual({
      name: 'bare', introducedByUrl: null, rolloutIssueUrl: null, milestone: null, type: 'experiment', group: null, defaultEnabled: true,
    });
    expect(() => readDefinition(file('named', 'name: other\ntype: experiment\ndefault_enabled: false\n'), 'experiment')).toThrow(/name and path match/);
    expect(() => readDefinition(file('typed', 'name: typed\ntype: development\ndefault_enabled: false\n'), 'experiment')).toThrow(/invalid type/);
    expect(() => readDefinition(file('defaulted', 'name: defaulted\ntype: experiment\n'), 'experiment')).toThrow(/default_enabled/);
    expect(() => readDefinition(file('listed', '- a\n- b\n'), 'experiment')).toThrow(/not a mapping/);
  });
});

describe('gates', () => {
  it("give Flipper's state and the gates Entities::Feature shows", () => {
    const off = gateValues([]);
    expect([stateOf(off), shownGates(off)]).toEqual(['off', [{ key: 'boolean', value: false }]]);
    const on = gateValues([{ key: 'boolean', value: 'true' }]);
    expect([stateOf(on), shownGates(on)]).toEqual(['on', [{ key: 'boolean', value: true }]]);
    const allTime = gateValues([{ key: 'percentage_of_time', value: '100' }]);
    expect(stateOf(allTime)).toBe('on');
    const mixed = gateValues([
      { key: 'groups', value: 'gitlab_team_members' },
      { key: 'actors', value: 'User:1' },
      { key: 'percentage_of_time', value: '12.5' },
      { key: 'percentage_of_actors', value: '0' },
    ]);
    expect([stateOf(mixed), shownGates(mixed)]).toEqual([
      'conditional',
      [
        { key: 'boolean', value: false },
        { key: 'actors', value: ['User:1'] },
        { key: 'percentage_of_time', value: 12.5 },
        { key: 'groups', value: ['gitlab_team_members'] },
      ],
    ]);
  });
});
