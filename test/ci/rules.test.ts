/** Which jobs run: GitLab's expression language, rules, only/except and workflow:rules. */
import { describe, expect, it } from 'vitest';
import { evaluateExpression } from '../../src/ci/config/index.js';
import { errors, itReports, jobs, names, plan } from './support.js';

const onTag = () => ({ CI_COMMIT_TAG: 'v1.0', CI_COMMIT_REF_NAME: 'v1.0', CI_COMMIT_BRANCH: null });

describe('expressions', () => {
  const vars = { BRANCH: 'main', EMPTY: '', SPACE: '  ', FEATURE: 'feature/login', PATTERN: '/^feat/', WORD: 'login', CAPS: 'MAIN' };
  const cases: [string, boolean][] = [
    ['$BRANCH', true],
    ['$UNDEFINED', false],
    ['$EMPTY', false],
    ['$SPACE', false],
    ['$BRANCH == "main"', true],
    ["$BRANCH == 'main'", true],
    ['$BRANCH != "main"', false],
    ['"main" == $BRANCH', true],
    ['$UNDEFINED == null', true],
    ['$EMPTY == null', false],
    ['$EMPTY == ""', true],
    ['$BRANCH != null', true],
    ['$FEATURE =~ /^feature\\//', true],
    ['$FEATURE =~ /^FEATURE/', false],
    ['$FEATURE =~ /^FEATURE/i', true],
    ['$FEATURE !~ /^release/', true],
    ['$UNDEFINED =~ /.*/', true],
    ['$FEATURE =~ $PATTERN', true],
    ['$FEATURE =~ $UNDEFINED', false],
    // Text that is not a `/pattern/` is searched for the left side, as Ruby's String#scan does.
    ['$WORD =~ $FEATURE', true],
    ['$FEATURE =~ $WORD', false],
    ['$FEATURE =~ /log(in|out)$/', true],
    ['$CAPS =~ /^[a-z]+$/i', true],
    ['$BRANCH == "main" && $FEATURE', true],
    ['$BRANCH == "dev" || $FEATURE =~ /login/', true],
    ['$BRANCH == "dev" || $BRANCH == "main" && $UNDEFINED', false],
    ['($BRANCH == "dev" || $BRANCH == "main") && $FEATURE', true],
    ['$BRANCH == "main" && ($UNDEFINED || $EMPTY)', false],
    ['$EMPTY && "x"', true],
    ['$UNDEFINED && "x"', false],
    ['$UNDEFINED || $BRANCH', true],
  ];
  it.each(cases)('%s is %s', (expression, expected) => {
    expect(evaluateExpression(expression, vars)).toBe(expected);
  });

  it('is false for what does not parse, never throws', () => {
    for (const bad of ['', '$A ==', '== $A', '$A $B', '($A', '$A)', '$A = "x"', 'true', '$A =~ /(unclosed/', '"unterminated', '$A && || $B']) {
      expect(evaluateExpression(bad, { A: 'x', B: 'y' })).toBe(false);
    }
    expect(evaluateExpression(Array(60).fill('$A').join(' && '), { A: 'x' })).toBe(false);
  });

  it('does not read variables through the prototype', () => {
    expect(evaluateExpression('$constructor', {})).toBe(false);
    expect(evaluateExpression('$__proto__ == null', {})).toBe(true);
  });

  it('matches hostile patterns in linear time, and refuses backreferences and lookaround', () => {
    const started = Date.now();
    expect(evaluateExpression('$X =~ /^(a+)+$/', { X: `${'a'.repeat(50_000)}b` })).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(evaluateExpression('$X =~ /(a)\\1/', { X: 'aa' })).toBe(false);
    expect(evaluateExpression('$X =~ /a(?=b)/', { X: 'ab' })).toBe(false);
  });
});

describe('rules', () => {
  it('runs a job on its first matching rule; none matching, or when: never, leaves it out', async () => {
    const content = [
      'main:',
      '  script: x',
      '  rules:',
      "    - if: $CI_COMMIT_BRANCH == 'main'",
      'tags:',
      '  script: x',
      '  rules:',
      '    - if: $CI_COMMIT_TAG',
      'never:',
      '  script: x',
      '  rules:',
      "    - if: $CI_COMMIT_BRANCH == 'main'",
      '      when: never',
      '    - when: always',
      '',
    ].join('\n');
    expect(await names(content)).toEqual(['main']);
    expect(await names(content, { variables: onTag() })).toEqual(['tags', 'never']);
  });

  it('takes when, allow_failure, start_in, variables, interruptible and needs from the matching rule', async () => {
    const content = [
      'variables: {G: g}',
      'build:',
      '  stage: build',
      '  script: x',
      'job:',
      '  script: x',
      '  when: on_failure',
      '  variables: {A: job, B: job}',
      '  rules:',
      '    - if: $CI_COMMIT_TAG',
      '      when: delayed',
      '      start_in: 5 minutes',
      '    - if: $CI_COMMIT_BRANCH',
      '      when: manual',
      '      allow_failure: true',
      '      interruptible: true',
      '      variables: {B: rule, C: rule}',
      '      needs: [build]',
      'inherits:',
      '  script: x',
      '  when: on_failure',
      '  rules:',
      '    - if: $CI_COMMIT_BRANCH',
      '',
    ].join('\n');
    const j = await jobs(content);
    expect(j.job).toMatchObject({ when: 'manual', allowFailure: true, interruptible: true, startIn: null, needs: [{ name: 'build', artifacts: true, optional: false }] });
    expect(j.job.variables).toEqual([{ key: 'G', value: 'g' }, { key: 'A', value: 'job' }, { key: 'B', value: 'rule' }, { key: 'C', value: 'rule' }]);
    expect(j.inherits.when).toBe('on_failure');
    expect((await jobs(content, { variables: onTag() })).job).toMatchObject({ when: 'delayed', startIn: 300, allowFailure: false });
  });

  it('makes rules:when manual jobs blocking unless the rule allows failure', async () => {
    const j = await jobs('job:\n  script: x\n  rules:\n    - when: manual\nworkflow:\n  rules:\n    - when: always\n');
    expect([j.job.when, j.job.allowFailure]).toEqual(['manual', false]);
  });

  it('sees job and global variables in rules, project variables over them, predefined ones under them', async () => {
    const content = "variables: {DEPLOY: 'no', CI_COMMIT_BRANCH: overridden}\njob:\n  script: x\n  variables: {LOCAL: 'yes'}\n  rules:\n    - if: $LOCAL == 'yes' && $DEPLOY == 'yes' && $CI_COMMIT_BRANCH == 'overridden'\n";
    expect(await names(content)).toEqual([]);
    expect(await names(content, { variables: { DEPLOY: 'yes' } })).toEqual(['job']);
  });

  it('matches rules:changes against the pushed paths (any change when unknown), with globs', async () => {
    const content = "docs:\n  script: x\n  rules:\n    - changes: ['docs/**/*.md', '{README,CHANGELOG}.md']\ncode:\n  script: x\n  rules:\n    - changes:\n        paths: ['src/*.ts']\n        compare_to: main\n";
    expect(await names(content)).toEqual(['docs', 'code']);
    expect(await names(content, { changes: ['docs/guide/intro.md'] })).toEqual(['docs']);
    expect(await names(content, { changes: ['README.md', 'src/a.ts'] })).toEqual(['docs', 'code']);
    expect(await names(content, { changes: ['src/deep/a.ts', 'docs/a.txt'] })).toEqual([]);
    expect(await names(content, { changes: [] })).toEqual([]);
  });

  it('matches rules:exists against the repository: literal paths read, globs listed', async () => {
    const content = "docker:\n  script: x\n  rules:\n    - exists: [Dockerfile]\nnode:\n  script: x\n  rules:\n    - exists: ['**/package.json']\nruby:\n  script: x\n  rules:\n    - exists: {paths: [Gemfile]}\n";
    expect(await names(content, { files: { Dockerfile: 'FROM x', 'web/package.json': '{}' } })).toEqual(['docker', 'node']);
    expect(await names(content, { files: { Gemfile: '' }, listFiles: false })).toEqual(['ruby']);
  });

  it('needs every clause of a rule to hold', async () => {
    const content = "job:\n  script: x\n  rules:\n    - if: $CI_COMMIT_BRANCH == 'main'\n      changes: [src/*]\n";
    expect(await names(content, { changes: ['src/a'] })).toEqual(['job']);
    expect(await names(content, { changes: ['lib/a'] })).toEqual([]);
  });

  const RULE_ERRORS: [string, string][] = [
    ["job:\n  script: x\n  rules:\n    - if: '$A =='\n", 'jobs:job:rules:rule if invalid expression syntax'],
    ['job:\n  script: x\n  rules:\n    - when: sometimes\n', 'jobs:job:rules:rule when unknown value: sometimes'],
    ['job:\n  script: x\n  rules:\n    - iff: $A\n', 'jobs:job:rules:rule config contains unknown keys: iff'],
    ['job:\n  script: x\n  rules: $A\n', 'jobs:job rules should be an array containing hashes and arrays of hashes'],
    ['job:\n  script: x\n  rules:\n    - when: delayed\n', "jobs:job:rules:rule start_in can't be blank"],
    ['job:\n  script: x\n  rules:\n    - start_in: 1 day\n', 'jobs:job:rules:rule config contains disallowed keys: start_in'],
    ['job:\n  script: x\n  rules:\n    - changes: src\n', 'jobs:job:rules:rule:changes should be an array or a hash'],
    ['job:\n  script: x\n  only: [main]\n  rules:\n    - when: always\n', 'jobs:job config key may not be used with `rules`: only'],
  ];
  itReports('words invalid rules as GitLab', RULE_ERRORS);

  it('flattens nested rule lists, as !reference builds them', async () => {
    expect(await names(".rules:\n  main:\n    - if: $CI_COMMIT_BRANCH\njob:\n  script: x\n  rules:\n    - !reference [.rules, main]\n    - when: never\n")).toEqual(['job']);
  });

  it('warns when a job ends its rules with a bare `when` and there are no workflow:rules', async () => {
    const result = await plan('a:\n  script: x\n  rules:\n    - if: $X\n    - when: on_success\nb:\n  script: x\n  rules:\n    - when: never\n');
    expect(result.warnings).toEqual([
      'jobs:a may allow multiple pipelines to run for a single action due to `rules:when` clause with no `workflow:rules` - read more: https://docs.gitlab.com/ee/ci/troubleshooting.html#pipeline-warnings',
    ]);
    expect((await plan('workflow:\n  rules:\n    - when: always\na:\n  script: x\n  rules:\n    - when: always\n')).warnings).toEqual([]);
  });

  it("refuses needs on a job the rules left out, unless optional, in GitLab's words", async () => {
    const content = "build:\n  stage: build\n  script: x\n  rules:\n    - if: $CI_MERGE_REQUEST_ID\ntest:\n  script: x\n  needs: [build]\nlint:\n  script: x\n  needs: [{job: build, optional: true}]\n";
    const result = await plan(content);
    expect(result.errors).toEqual([
      "'test' job needs 'build' job, but 'build' does not exist in the pipeline. This might be because of the only, except, or rules keywords. To need a job that sometimes does not exist in the pipeline, use needs:optional.",
    ]);
    expect(result.jobs).toEqual([]);
    const optional = await jobs(content.replace('  needs: [build]\n', ''));
    expect(optional.lint.needs).toEqual([]);
  });
});

describe('only and except', () => {
  it('runs jobs on branches and tags by default, not in merge request pipelines', async () => {
    expect(await names('job:\n  script: x\n')).toEqual(['job']);
    expect(await names('job:\n  script: x\n', { variables: onTag() })).toEqual(['job']);
    const mr = { CI_PIPELINE_SOURCE: 'merge_request_event', CI_COMMIT_BRANCH: null, CI_MERGE_REQUEST_ID: '1' };
    expect(await names('job:\n  script: x\nmr:\n  script: x\n  only: [merge_requests]\n', { variables: mr })).toEqual(['mr']);
  });

  it('matches refs by name, /regexp/, keyword and project path', async () => {
    const content = [
      'name:\n  script: x\n  only: [main]',
      'regexp:\n  script: x\n  only: [/^ma.n$/]',
      'tags:\n  script: x\n  only: [tags]',
      'pushes:\n  script: x\n  only: [pushes]',
      'schedules:\n  script: x\n  only: [schedules]',
      'project:\n  script: x\n  only: [main@group/project]',
      'other:\n  script: x\n  only: [main@group/other]',
      'excepted:\n  script: x\n  except: [/^main$/]',
      '',
    ].join('\n');
    expect(await names(content)).toEqual(['name', 'regexp', 'pushes', 'project']);
    expect(await names(content, { variables: { CI_PIPELINE_SOURCE: 'schedule' } })).toEqual(['name', 'regexp', 'schedules', 'project']);
  });

  it('reads only/except variables, changes and kubernetes, every condition needed', async () => {
    const content = "vars:\n  script: x\n  only:\n    variables: [$DEPLOY == 'yes', $FORCE]\nboth:\n  script: x\n  only:\n    refs: [main]\n    changes: [src/**/*]\nk8s:\n  script: x\n  only:\n    kubernetes: active\nnotdocs:\n  script: x\n  except:\n    changes: ['*.md']\n";
    expect(await names(content, { changes: ['README.md'] })).toEqual([]);
    expect(await names(content, { variables: { FORCE: '1' }, changes: ['src/a/b.ts'] })).toEqual(['vars', 'both', 'notdocs']);
  });

  it('reports invalid policies', async () => {
    expect(await errors('job:\n  script: x\n  only: main\n')).toEqual(['jobs:job:only has to be either an array of conditions or a hash']);
    expect(await errors('job:\n  script: x\n  only: {branches: [main]}\n')).toEqual(['jobs:job:only config contains unknown keys: branches']);
    expect(await errors('job:\n  script: x\n  except: [/(unclosed/]\n')).toEqual(['jobs:job:except config should be an array of strings or regular expressions using re2 syntax']);
  });
});

describe('workflow', () => {
  const content = [
    'workflow:',
    "  name: 'Pipeline for $PIPELINE_KIND $CI_COMMIT_REF_NAME$MISSING'",
    '  rules:',
    '    - if: $CI_COMMIT_TAG',
    '      when: never',
    "    - if: $CI_COMMIT_BRANCH == 'main'",
    '      variables:',
    "        PIPELINE_KIND: 'release of $PROJECT_NAME'",
    '        DEPLOY: "true"',
    '    - if: $CI_COMMIT_BRANCH',
    'variables: {PROJECT_NAME: api, DEPLOY: "false"}',
    'job:',
    '  script: x',
    '  rules:',
    "    - if: $DEPLOY == 'true'",
    '',
  ].join('\n');

  it('runs the pipeline on the first matching rule, adding its variables, and names it with variables expanded', async () => {
    const result = await plan(content);
    expect(result).toMatchObject({ errors: [], filteredByWorkflow: false, name: 'Pipeline for release of api main', workflowVariables: [{ key: 'PIPELINE_KIND', value: 'release of $PROJECT_NAME' }, { key: 'DEPLOY', value: 'true' }] });
    expect(result.jobs.map((j) => [j.name, j.variables])).toEqual([['job', [{ key: 'PROJECT_NAME', value: 'api' }, { key: 'DEPLOY', value: 'true' }, { key: 'PIPELINE_KIND', value: 'release of $PROJECT_NAME' }]]]);
    expect(await plan(content, { variables: { CI_COMMIT_BRANCH: 'dev', CI_COMMIT_REF_NAME: 'dev' } })).toMatchObject({ filteredByWorkflow: false, name: 'Pipeline for  dev', jobs: [] });
  });

  it('filters the pipeline out on when: never or when no rule matches', async () => {
    expect(await plan(content, { variables: onTag() })).toMatchObject({ filteredByWorkflow: true, jobs: [], errors: [] });
    expect(await plan(content, { variables: { CI_PIPELINE_SOURCE: 'merge_request_event', CI_COMMIT_BRANCH: null } })).toMatchObject({ filteredByWorkflow: true });
  });

  it('drops only/except defaults under workflow:rules and reports invalid workflow keys', async () => {
    const j = await jobs('workflow:\n  rules:\n    - when: always\njob:\n  script: x\n', { variables: { CI_PIPELINE_SOURCE: 'merge_request_event', CI_COMMIT_BRANCH: null } });
    expect(j.job.only).toBeNull();
    expect(await errors('workflow:\n  rules:\n    - when: manual\njob:\n  script: x\n')).toEqual(['workflow:rules:rule when unknown value: manual']);
    expect(await errors('workflow:\n  when: always\njob:\n  script: x\n')).toEqual(['workflow config contains unknown keys: when']);
    expect(await errors(`workflow:\n  name: ${'n'.repeat(256)}\njob:\n  script: x\n`)).toEqual(['workflow name is too long (maximum is 255 characters)']);
  });
});
