/** The `.gitlab-ci.yml` engine: keywords, rules, expressions, extends, includes and GitLab's errors; hostile input never throws. */
import { describe, expect, it } from 'vitest';
import { evaluateExpression, parseDuration, planPipeline, type CiContext } from '../../src/ci/config/index.js';

const push = { CI_PIPELINE_SOURCE: 'push', CI_COMMIT_REF_NAME: 'main', CI_COMMIT_BRANCH: 'main', CI_DEFAULT_BRANCH: 'main' };

function ctx(variables: Record<string, string> = push, files: Record<string, string> = {}, changes?: string[]): CiContext {
  return { variables, changes, readLocal: async (path) => files[path] ?? null };
}

describe('expressions', () => {
  it.each([
    ['$A', { A: 'x' }, true],
    ['$A', { A: '' }, false],
    ['$MISSING', {}, false],
    ['$A == "x"', { A: 'x' }, true],
    ["$A != 'x'", { A: 'x' }, false],
    ['$A == null', {}, true],
    ['$A =~ /^rel/', { A: 'release-1' }, true],
    ['$A !~ /^rel/i', { A: 'REL' }, false],
    ['$A == "1" && $B == "2" || $C', { A: '1', B: '3', C: 'yes' }, true],
    ['$A == "1" && ($B == "2" || $C)', { A: '0', B: '2' }, false],
    ['${A} == $B', { A: 'v', B: 'v' }, true],
    ['$A =~ $P', { A: 'main', P: '/ma.n/' }, true],
  ])('%s with %j → %s', (expression, variables, expected) => {
    expect(evaluateExpression(expression, variables as Record<string, string>)).toBe(expected);
  });

  it('refuses what does not parse', () => {
    for (const bad of ['$A ==', '"open', '$A =~ "x"', '($A', '$A $B', '/[/']) expect(() => evaluateExpression(bad, { A: 'x' })).toThrow();
  });
});

describe('planPipeline', () => {
  it('plans stages, defaults and job settings', async () => {
    const plan = await planPipeline(
      `
default:
  image: node:20
  before_script: [npm ci]
  tags: [docker]
variables: { GLOBAL: g, NUM: 3 }
stages: [build, test]
build:
  stage: build
  script:
    - echo one
    - [echo two, echo three]
  variables: { GLOBAL: job }
  artifacts: { paths: [dist/], reports: { junit: report.xml }, expire_in: 1 week }
  retry: { max: 2, when: [script_failure] }
  timeout: 1h 30m
  coverage: '/Coverage: \\d+/'
unit:
  script: npm test
  allow_failure: { exit_codes: [3, 4] }
  needs: [build]
later:
  stage: test
  script: sleep
  when: delayed
  start_in: 10 minutes
.hidden:
  script: never
`,
      ctx(),
    );
    expect(plan.errors).toEqual([]);
    expect(plan.stages).toEqual(['.pre', 'build', 'test', '.post']);
    expect(plan.jobs.map((j) => [j.name, j.stage, j.stageIdx, j.when])).toEqual([
      ['build', 'build', 1, 'on_success'],
      ['unit', 'test', 2, 'on_success'],
      ['later', 'test', 2, 'delayed'],
    ]);
    const [build, unit, later] = plan.jobs;
    expect(build).toMatchObject({
      script: ['echo one', 'echo two', 'echo three'],
      beforeScript: ['npm ci'],
      image: { name: 'node:20' },
      tags: ['docker'],
      variables: [
        { key: 'GLOBAL', value: 'g' },
        { key: 'NUM', value: '3' },
        { key: 'GLOBAL', value: 'job' },
      ],
      artifacts: { paths: ['dist/'], reports: { junit: ['report.xml'] }, expireIn: '1 week', when: 'on_success' },
      retry: { max: 2, when: ['script_failure'] },
      timeout: 5400,
      coverage: '/Coverage: \\d+/',
      needs: null,
    });
    expect(unit).toMatchObject({ allowFailure: false, allowFailureExitCodes: [3, 4], needs: [{ name: 'build', artifacts: true, optional: false }] });
    expect(later.startIn).toBe(600);
  });

  it('keeps the jobs rules keep, with their when, variables and allow_failure', async () => {
    const plan = await planPipeline(
      `
deploy:
  script: deploy
  rules:
    - if: $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH
      when: manual
      allow_failure: true
      variables: { TARGET: prod }
    - when: never
feature-only:
  script: x
  rules:
    - if: $CI_COMMIT_BRANCH =~ /^feature/
docs:
  script: x
  rules:
    - changes: [docs/**/*.md]
tags-only:
  script: x
  only: [tags]
not-main:
  script: x
  except: [main]
api-only:
  script: x
  only: { refs: [api] }
`,
      ctx(push, {}, ['docs/guide/intro.md']),
    );
    expect(plan.errors).toEqual([]);
    expect(plan.jobs.map((j) => j.name)).toEqual(['deploy', 'docs']);
    expect(plan.jobs[0]).toMatchObject({ when: 'manual', allowFailure: true, variables: [{ key: 'TARGET', value: 'prod' }] });
    const api = await planPipeline('api-only:\n  script: x\n  only: [api]\n', ctx({ ...push, CI_PIPELINE_SOURCE: 'api' }));
    expect(api.jobs.map((j) => j.name)).toEqual(['api-only']);
  });

  it('applies workflow rules and names the pipeline', async () => {
    const config = `
workflow:
  name: 'Build $CI_COMMIT_BRANCH'
  rules:
    - if: $CI_PIPELINE_SOURCE == "schedule"
      when: never
    - when: always
job: { script: x }
`;
    expect(await planPipeline(config, ctx())).toMatchObject({ name: 'Build main', filteredByWorkflow: false });
    expect(await planPipeline(config, ctx({ ...push, CI_PIPELINE_SOURCE: 'schedule' }))).toMatchObject({ filteredByWorkflow: true, jobs: [] });
  });

  it('resolves extends, anchors, !reference and local includes', async () => {
    const plan = await planPipeline(
      `
include:
  - local: ci/base.yml
.defaults: &defaults
  variables: { A: '1' }
.setup:
  script: [setup]
job:
  <<: *defaults
  extends: .template
  script:
    - !reference [.setup, script]
    - run
`,
      ctx(push, { 'ci/base.yml': '.template:\n  tags: [linux]\n  variables: { B: "2" }\n' }),
    );
    expect(plan.errors).toEqual([]);
    expect(plan.jobs[0]).toMatchObject({ script: ['setup', 'run'], tags: ['linux'] });
    // extends merges hashes: the template's variables and the job's own.
    expect(plan.jobs[0].variables).toEqual([{ key: 'B', value: '2' }, { key: 'A', value: '1' }]);
    expect(plan.includes).toEqual([expect.objectContaining({ type: 'local', location: 'ci/base.yml' })]);
  });

  it.each([
    ['build: [unclosed', /\(<unknown>\)/],
    ['"just a string"', /Invalid configuration format/],
    ['job: { stage: test }', /jobs:job config should implement the script:, run:, or trigger: keyword/],
    ['job: { script: x, bogus: 1 }', /jobs:job config contains unknown keys: bogus/],
    ['job: { script: x, stage: nope }', /job job: chosen stage nope does not exist/],
    ['.only-hidden: { script: x }', /jobs config should contain at least one visible job/],
    ['a: { script: x, needs: [b] }', /'a' job needs 'b' job, but 'b' does not exist in the pipeline/],
    ['a: { script: x, extends: a }', /circular dependency detected in `extends`/],
    ['a: { script: x, extends: .nope }', /unknown keys in `extends`/],
    ['include: missing.yml\na: { script: x }', /Local file `missing.yml` does not exist!/],
    ['include: { remote: "https://x/y.yml" }\na: { script: x }', /not supported/],
    ['a: { script: x, rules: [{ if: "$A ==" }] }', /invalid expression syntax/],
    ['a: { script: x, when: sometimes }', /when should be one of/],
    ['a: { script: x, when: delayed }', /start in should be specified for delayed job/],
    ['a: { script: x, retry: 5 }', /retry config must be between 0 and 2/],
  ])('reports %j as an error', async (config, message) => {
    const plan = await planPipeline(config, ctx());
    expect(plan.jobs).toEqual([]);
    expect(plan.errors.join('\n')).toMatch(message);
  });

  it('never throws on hostile input', async () => {
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 12; i++) bomb.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)}]`);
    const inputs = ['job:\0 { script: x }', '\xff\xfe', bomb.join('\n'), `${'['.repeat(5000)}${']'.repeat(5000)}`, 'a: { script: x, timeout: 1e400 }', 'a: !!binary aGVsbG8=', 'x'.repeat(5 * 1024 * 1024)];
    for (const input of inputs) {
      const plan = await planPipeline(input, ctx());
      expect(plan.errors.length + plan.jobs.length).toBeGreaterThan(0);
    }
  });

  it('reads GitLab durations', () => {
    expect(parseDuration('30')).toBe(30);
    expect(parseDuration('1 day')).toBe(86400);
    expect(parseDuration('2h 30m')).toBe(9000);
    expect(parseDuration('10 seconds')).toBe(10);
    expect(parseDuration('soon')).toBeNull();
  });
});
