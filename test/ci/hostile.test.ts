/**
 * Hostile configurations: the engine answers every one with errors (or a plan) and never throws. That it does so
 * in bounded time is what the test timeout checks: an alias bomb or a backtracking regexp would run for minutes.
 */
import { describe, expect, it } from 'vitest';
import { Planner, TIMEOUT_MESSAGE } from '../../src/ci/config/thread.js';
import { BOMBS } from './bombs.js';
import { context, errors, jobs, plan } from './support.js';

const TOO_BIG = 'The parsed YAML is too big';

describe('hostile input', () => {
  it('refuses an alias bomb by the values it would expand to', async () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      levels.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const result = await plan(`${levels.join('\n')}\n`);
    expect(result.errors).toEqual([TOO_BIG]);
  });

  it('refuses deep nesting, in flow and block style', async () => {
    expect(await errors(`a: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n`)).toEqual([TOO_BIG]);
    expect(await errors(`${Array.from({ length: 150 }, (_, i) => `${' '.repeat(i)}k:`).join('\n')} 1\n`)).toEqual([TOO_BIG]);
  });

  it('refuses a text beyond 2 MB before parsing it, and parsed data beyond 2 MB', async () => {
    expect(await errors(`job:\n  script: "${'a'.repeat(2 * 1024 * 1024)}"\n`)).toEqual(['The provided YAML is too big']);
    expect(await errors(`job:\n  script: [${Array(60_000).fill('x').join(', ')}]\n`)).toEqual([TOO_BIG]);
  });

  it.each(Object.keys(BOMBS))('refuses the %s bomb by measuring it, not by expanding it', async (name) => {
    const started = performance.now();
    expect(await errors(BOMBS[name])).toEqual([TOO_BIG]);
    // Bounded work: the whole plan, thread start included, where expanding took from 3 s to minutes.
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('takes data 100 levels deep, GitLab\'s max_yaml_depth, and refuses 101', async () => {
    const nested = (levels: number) => `.deep: ${'['.repeat(levels)}x${']'.repeat(levels)}\njob:\n  script: x\n`;
    expect(await errors(nested(99))).toEqual([]);
    expect(await errors(nested(100))).toEqual([TOO_BIG]);
  });

  it('refuses a recursive alias, as deeper than the bound', async () => {
    expect(await errors('a: &a [x, *a]\njob:\n  script: x\n')).toEqual([TOO_BIG]);
  });

  it('shares what an alias names, as Psych does: merge keys of a shared mapping stay small', async () => {
    const fanIn = Array.from({ length: 30 }, (_, i) => `.m${i + 1}: &m${i + 1} {<<: [${Array(10).fill(`*m${i}`).join(', ')}], k${i + 1}: ${i + 1}}`).join('\n');
    const planned = await jobs(`.m0: &m0 {k0: [1, 2, 3]}\n${fanIn}\n.tpl: &tpl {script: [make]}\nbuild: {<<: *tpl, stage: test}\n`);
    expect(planned.build.script).toEqual(['make']);
  });

  it('refuses !reference chains that would multiply a value beyond the bound', async () => {
    const refs = Array.from({ length: 9 }, (_, i) => `r${i + 1}: [${Array(10).fill(`!reference [${i === 0 ? 'a' : `r${i}`}]`).join(', ')}]`).join('\n');
    const result = await plan(`a: [x, x, x, x, x, x, x, x, x, x]\n${refs}\njob:\n  script: !reference [r9]\n`);
    expect(result.errors).toEqual([TOO_BIG]);
  });

  it('answers NUL bytes, binary data, huge numbers and odd keys without throwing', async () => {
    expect((await errors('job:\n  script: "a\u0000b"\n\u0000\u0001')).length).toBe(1);
    const binary = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256)).toString('latin1');
    expect((await errors(binary)).length).toBeGreaterThan(0);
    expect(await errors('job:\n  script: x\n  retry: 99999999999999999999999999\n  timeout: 99999999999999999999 hours\n')).toEqual([
      'retry config must be less than or equal to 2',
      'jobs:job:timeout config should not exceed the limit',
    ]);
    const odd = await plan('__proto__:\n  script: a\nconstructor:\n  script: b\n? [complex, key]\n: {script: c}\n1:\n  script: d\n');
    expect(odd.errors).toEqual([]);
    expect(odd.jobs.map((j) => j.name)).toEqual(['__proto__', 'constructor', '["complex","key"]', '1']);
  });

  it('keeps regexps linear on long refs and variables', async () => {
    const result = await plan("job:\n  script: x\n  rules:\n    - if: '$CI_COMMIT_REF_NAME =~ /^(a|a)*(a+)+$/'\n  only: []\nother:\n  script: x\n  only: ['/^(a+)+$/']\n", {
      variables: { CI_COMMIT_REF_NAME: `${'a'.repeat(100_000)}!` },
    });
    expect(result.errors).toEqual(['jobs:job config key may not be used with `rules`: only']);
    const run = await plan("job:\n  script: x\n  rules:\n    - if: '$CI_COMMIT_REF_NAME =~ /^(a|a)*(a+)+$/'\nother:\n  script: x\n  only: ['/^(a+)+$/']\n", {
      variables: { CI_COMMIT_REF_NAME: `${'a'.repeat(100_000)}!` },
    });
    expect(run.jobs).toEqual([]);
  });

  it('keeps globs polynomial on many stars', async () => {
    const result = await plan(`job:\n  script: x\n  rules:\n    - changes: ['${'*a'.repeat(30)}*b']\n`, { changes: [`${'a'.repeat(3000)}`] });
    expect(result.jobs).toEqual([]);
  });

  it('survives random mutations of a real configuration without throwing', async () => {
    const base = [
      'stages: [build, test]',
      'variables: {A: a}',
      'default: {image: ruby, tags: [x]}',
      '.tpl: &tpl {script: [make], rules: [{if: $A, when: manual}]}',
      'build: {<<: *tpl, stage: build, needs: [], artifacts: {paths: [out]}}',
      'test: {extends: .tpl, needs: [build], script: !reference [build, script], parallel: 2}',
      "workflow: {rules: [{if: '$CI_COMMIT_BRANCH', variables: {B: b}}]}",
      '',
    ].join('\n');
    const alphabet = ['\n', ' ', ':', '-', '[', ']', '{', '}', '&', '*', '!', '"', "'", '$', '|', '>', '#', 'x', '0', '\t', '\u0000', '\uFFFF'];
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 300; round++) {
      const chars = [...base];
      for (let edits = 1 + Math.floor(random() * 5); edits > 0; edits--) {
        const at = Math.floor(random() * chars.length);
        const kind = random();
        if (kind < 0.4) chars.splice(at, 1);
        else if (kind < 0.8) chars.splice(at, 0, alphabet[Math.floor(random() * alphabet.length)]);
        else chars.splice(at, 0, ...chars.slice(Math.floor(random() * chars.length), Math.floor(random() * chars.length)));
      }
      const result = await plan(chars.join(''));
      expect(Array.isArray(result.errors)).toBe(true);
      for (const error of result.errors) expect(typeof error).toBe('string');
    }
  });
});

describe('hostile includes', () => {
  it('bounds the values of all included files together, not each file alone', async () => {
    const bomb = (n: number) => `b${n}a: &a${n} [x, x, x, x, x, x, x, x, x, x]\nb${n}b: &b${n} [*a${n}, *a${n}, *a${n}, *a${n}, *a${n}, *a${n}, *a${n}, *a${n}, *a${n}, *a${n}]\nb${n}c: &c${n} [*b${n}, *b${n}, *b${n}, *b${n}, *b${n}, *b${n}, *b${n}, *b${n}, *b${n}, *b${n}]\nb${n}d: [*c${n}, *c${n}, *c${n}, *c${n}, *c${n}, *c${n}, *c${n}, *c${n}, *c${n}, *c${n}, *c${n}, *c${n}]\n`;
    const files = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`b${i}.yml`, bomb(i)]));
    const result = await plan(`include: [${Object.keys(files).join(', ')}]\njob:\n  script: x\n`, { files });
    expect(result.errors[0]).toMatch(/^`b\d+\.yml`: The parsed YAML is too big$/);
  });
});

describe('planning on a worker thread', () => {
  it('fails a plan past its deadline with GitLab\'s timeout error, then plans the next one', async () => {
    const planner = new Planner(1, 300);
    const stalled = { ...context(), readLocal: () => new Promise<string | null>(() => {}) };
    const timedOut = await planner.plan('include: [stuck.yml]\njob:\n  script: x\n', stalled);
    expect(timedOut.errors).toEqual([TIMEOUT_MESSAGE]);
    expect(timedOut.mergedYaml).toBeNull();
    expect((await planner.plan('job:\n  script: x\n', context())).jobs.map((j) => j.name)).toEqual(['job']);
  });

  it('stops a thread busy computing past the deadline', async () => {
    // 3,000 jobs: within every size bound (6,000 are too big, refused before the deadline on a fast machine), and
    // about 300 ms of planning on an idle one, twice the deadline; a loaded machine slows the planning as much as it
    // stretches nothing else. A trivial plan takes a few ms once its thread is ready (the deadline starts then).
    const planner = new Planner(1, 150);
    const big = Array.from({ length: 3000 }, (_, i) => `job${i}:\n  script: [echo ${i}, make test-${i}]\n  tags: [linux]\n`).join('');
    // Warm the thread first, so the deadline falls inside the planning, not the thread's start.
    await planner.plan('job:\n  script: x\n', context());
    expect((await planner.plan(big, context())).errors).toEqual([TIMEOUT_MESSAGE]);
    expect((await planner.plan('job:\n  script: x\n', context())).errors).toEqual([]);
  });
});
