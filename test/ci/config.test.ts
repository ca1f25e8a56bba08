/** The CI configuration engine: each keyword as GitLab reads it, and GitLab's errors for each mistake. */
import { describe, expect, it } from 'vitest';
import { errors, itReports, jobs, names, plan } from './support.js';

describe('jobs and stages', () => {
  it('reads stages (build, test, deploy by default) with .pre first and .post last', async () => {
    expect((await plan('job:\n  script: x\n')).stages).toEqual(['.pre', 'build', 'test', 'deploy', '.post']);
    expect((await plan('stages: [lint, [unit, e2e], ship]\njob:\n  script: x\n')).stages).toEqual(['.pre', 'lint', 'unit', 'e2e', 'ship', '.post']);
    expect((await plan('stages: [.post, a, .pre]\njob:\n  stage: a\n  script: x\n')).stages).toEqual(['.pre', 'a', '.post']);
  });

  it('puts a job in `test` unless it names a stage (or the deprecated `type`), with its index', async () => {
    const j = await jobs('first:\n  stage: .pre\n  script: a\nsecond:\n  script: b\nthird:\n  type: deploy\n  script: c\n');
    expect([j.first.stage, j.first.stageIdx, j.second.stage, j.second.stageIdx, j.third.stage, j.third.stageIdx]).toEqual(['.pre', 0, 'test', 2, 'deploy', 3]);
  });

  it('plans no jobs when only .pre and .post jobs remain, as GitLab creates no pipeline then', async () => {
    expect(await names('first:\n  stage: .pre\n  script: a\nlast:\n  stage: .post\n  script: b\n')).toEqual([]);
    expect(await names('first:\n  stage: .pre\n  script: a\nbuild:\n  script: b\n')).toEqual(['first', 'build']);
    expect((await plan('first:\n  stage: .pre\n  script: a\n', { static: true })).jobs.map((j) => j.name)).toEqual(['first']);
  });

  it('keeps jobs in configuration order and leaves hidden jobs out', async () => {
    expect(await names('zeta:\n  script: z\n.hidden:\n  script: h\nalpha:\n  script: a\n')).toEqual(['zeta', 'alpha']);
  });

  it('flattens nested script arrays and reads a string as one command', async () => {
    const j = await jobs('job:\n  script:\n    - one\n    - [two, [three]]\n  before_script: setup\n  after_script: [teardown]\n');
    expect([j.job.script, j.job.beforeScript, j.job.afterScript]).toEqual([['one', 'two', 'three'], ['setup'], ['teardown']]);
  });

  it('treats unknown top-level keys as jobs, `default`/`workflow` only when they look like one', async () => {
    expect(await names('default:\n  script: x\nworkflow:\n  script: y\n')).toEqual(['default', 'workflow']);
    expect(await errors('variables: {A: b}\nfoo: bar\n')).toEqual([
      'jobs foo config should implement the script:, run:, or trigger: keyword',
      'jobs config should contain at least one visible job',
    ]);
  });

  it('needs at least one visible job', async () => {
    expect(await errors('.hidden:\n  script: x\n')).toEqual(['jobs config should contain at least one visible job']);
    expect(await errors('image: ruby\n')).toEqual(['jobs config should contain at least one visible job']);
  });

  it('answers blank content, non-hash content and invalid YAML with no merged YAML or includes', async () => {
    expect(await plan('  \n')).toMatchObject({ errors: ['Please provide content of .gitlab-ci.yml'], mergedYaml: null, includes: null });
    expect(await plan('- a\n- b\n')).toMatchObject({ errors: ['Invalid configuration format'], mergedYaml: null, includes: null });
    const bad = await plan('job:\n  script: [a\nb: }\n');
    expect(bad.mergedYaml).toBeNull();
    expect(bad.errors[0]).toMatch(/^\(<unknown>\): .+ at line \d+ column \d+$/);
  });

  const WORDING: [string, string][] = [
    ['build:\n  script: make\n  foo: 1\n  bar: 2\n', 'jobs:build config contains unknown keys: foo, bar'],
    ['build:\n  script: {a: 1}\n', 'jobs:build:script config should be a string or a nested array of strings up to 10 levels deep'],
    ['build:\n  script: x\n  when: sometimes\n', 'jobs:build when should be one of: on_success, on_failure, always, manual, delayed'],
    ['build:\n  script: x\n  stage: [a]\n', 'jobs:build:stage config should be a string'],
    ['build:\n  script: x\n  image: [a]\n', 'jobs:build:image config should be a hash or a string'],
    ['build:\n  script: x\n  image: {entrypoint: [a]}\n', "jobs:build:image name can't be blank"],
    ['build:\n  script: x\n  services: postgres\n', 'jobs:build:services config should be a array'],
    ['build:\n  script: x\n  tags: docker\n', 'jobs:build:tags config should be an array of strings'],
    ['build:\n  script: x\n  interruptible: yes please\n', 'jobs:build:interruptible config should be a boolean value'],
    ['build:\n  script: x\n  dependencies: a\n', 'jobs:build dependencies should be an array of strings'],
    ['build:\n  script: x\n  extends: {a: 1}\n', 'jobs:build extends should be an array of strings or a string'],
    ['build:\n  script: x\n  coverage: "Coverage: (\\\\d+)"\n', 'jobs:build:coverage config must be a regular expression with re2 syntax'],
    ['build:\n  script: x\n  environment: {url: x}\n', "jobs:build:environment name can't be blank"],
    ['build:\n  script: x\n  environment: {name: prod, action: destroy}\n', 'jobs:build:environment action should be start, stop, prepare, verify, or access'],
    ['Build:\n  script: x\n  Foo: 1\n', 'jobs:build config contains unknown keys: foo'],
  ];
  itReports('words a mistake as GitLab', WORDING);

  it('reports a job name longer than 255 characters', async () => {
    const name = 'j'.repeat(256);
    expect(await errors(`${name}:\n  script: x\n`)).toEqual([`jobs:${name} name is too long (maximum is 255 characters)`]);
  });
});

describe('default and global keywords', () => {
  it("gives jobs `default:` values they do not set, the job's own winning", async () => {
    const content = 'default:\n  image: ruby:3\n  before_script: [bundle]\n  tags: [docker]\n  retry: 2\n  timeout: 30m\n  interruptible: true\n  artifacts: {paths: [out/]}\n  services: [postgres]\n  after_script: [clean]\nown:\n  script: x\n  image: alpine\n  tags: []\n  retry: 0\ninherited:\n  script: y\n';
    const j = await jobs(content);
    expect(j.inherited).toMatchObject({ image: { name: 'ruby:3' }, beforeScript: ['bundle'], afterScript: ['clean'], tags: ['docker'], retry: { max: 2 }, timeout: 1800, interruptible: true, services: [{ name: 'postgres' }] });
    expect(j.inherited.artifacts?.paths).toEqual(['out/']);
    expect(j.own).toMatchObject({ image: { name: 'alpine' }, tags: [], retry: { max: 0 }, beforeScript: ['bundle'] });
  });

  it('limits what is inherited with inherit:default and inherit:variables', async () => {
    const content = 'variables: {A: a, B: b}\ndefault:\n  image: ruby\n  tags: [docker]\nnone:\n  script: x\n  inherit: {default: false, variables: false}\nsome:\n  script: x\n  inherit: {default: [tags], variables: [B]}\n';
    const j = await jobs(content);
    expect([j.none.image, j.none.tags, j.none.variables]).toEqual([null, [], []]);
    expect([j.some.image, j.some.tags, j.some.variables]).toEqual([null, ['docker'], [{ key: 'B', value: 'b' }]]);
  });

  it('still reads the deprecated top-level image, services and scripts, but not beside the same key in `default:`', async () => {
    const j = await jobs('image: ruby\nbefore_script: [a]\nservices: [redis]\njob:\n  script: x\n');
    expect(j.job).toMatchObject({ image: { name: 'ruby' }, beforeScript: ['a'], services: [{ name: 'redis' }] });
    expect(await plan('image: ruby\ndefault:\n  image: alpine\njob:\n  script: x\n')).toMatchObject({ errors: ['image is defined in top-level and `default:` entry'], mergedYaml: null });
  });

  it('reports unknown `default:` keys and invalid default values', async () => {
    expect(await errors('default:\n  when: manual\n  stage: a\njob:\n  script: x\n')).toEqual(['default config contains unknown keys: when, stage']);
    expect(await errors('default:\n  image: [a]\njob:\n  script: x\n')).toEqual(['default:image config should be a hash or a string']);
  });

  it('merges job variables over global ones (strings, numbers and {value, description}), a key keeping its place', async () => {
    const j = await jobs('variables:\n  GLOBAL: g\n  NUM: 42\n  FLAG: true\n  DESC: {value: d, description: a var}\njob:\n  script: x\n  variables: {GLOBAL: job, LOCAL: 1.5}\n');
    expect(j.job.variables).toEqual([
      { key: 'GLOBAL', value: 'job' },
      { key: 'NUM', value: '42' },
      { key: 'FLAG', value: 'true' },
      { key: 'DESC', value: 'd' },
      { key: 'LOCAL', value: '1.5' },
    ]);
  });

  it('reports invalid variables', async () => {
    expect(await errors('variables: [a]\njob:\n  script: x\n')).toEqual(['variables config should be a hash']);
    expect(await errors('variables:\n  A: {value: a, bogus: 1}\njob:\n  script: x\n')).toEqual(['variables:a config uses invalid data keys: bogus']);
    expect(await errors('job:\n  script: x\n  variables: {A: {value: a, description: d}}\n')).toEqual(['jobs:job:variables:a config uses invalid data keys: description']);
    expect(await errors('variables:\n  A: [1]\njob:\n  script: x\n')).toEqual(['variable definition must be either a string or a hash']);
  });
});

describe('job settings', () => {
  it('reads when, delayed start_in in seconds, and its limit', async () => {
    const j = await jobs('later:\n  script: x\n  when: delayed\n  start_in: 1 day\nsoon:\n  script: x\n  when: delayed\n  start_in: 10s\n');
    expect([j.later.when, j.later.startIn, j.soon.startIn]).toEqual(['delayed', 86400, 10]);
    expect(await errors('job:\n  script: x\n  when: delayed\n  start_in: 2 weeks\n')).toEqual(['jobs:job start_in should not exceed the limit']);
    expect(await errors('job:\n  script: x\n  when: delayed\n')).toEqual(['jobs:job start_in should be a duration']);
    expect(await errors('job:\n  script: x\n  start_in: 1 day\n')).toEqual(['jobs:job start_in must be blank']);
  });

  it('lets manual jobs fail by default, and reads allow_failure as a boolean or exit codes', async () => {
    const j = await jobs('manual:\n  script: x\n  when: manual\nstrict:\n  script: x\n  when: manual\n  allow_failure: false\ncodes:\n  script: x\n  allow_failure: {exit_codes: 137}\nlist:\n  script: x\n  allow_failure: {exit_codes: [1, 2]}\nplain:\n  script: x\n');
    expect([j.manual.allowFailure, j.strict.allowFailure, j.plain.allowFailure]).toEqual([true, false, false]);
    expect([j.codes.allowFailure, j.codes.allowFailureExitCodes, j.list.allowFailureExitCodes, j.plain.allowFailureExitCodes]).toEqual([false, [137], [1, 2], null]);
    expect(await errors('job:\n  script: x\n  allow_failure: maybe\n')).toEqual(['jobs:job:allow_failure config should be a hash or a boolean value']);
    expect(await errors('job:\n  script: x\n  allow_failure: {codes: 1}\n')).toEqual(['jobs:job:allow_failure config contains unknown keys: codes']);
  });

  it('reads retry as a count or {max, when, exit_codes}, within GitLab limits', async () => {
    const j = await jobs('a:\n  script: x\n  retry: 2\nb:\n  script: x\n  retry: {max: 1, when: runner_system_failure, exit_codes: [137]}\nc:\n  script: x\n');
    expect([j.a.retry, j.b.retry, j.c.retry]).toEqual([
      { max: 2, when: ['always'], exitCodes: [] },
      { max: 1, when: ['runner_system_failure'], exitCodes: [137] },
      { max: 0, when: ['always'], exitCodes: [] },
    ]);
    expect(await errors('job:\n  script: x\n  retry: 3\n')).toEqual(['retry config must be less than or equal to 2']);
    expect(await errors('job:\n  script: x\n  retry: {max: 1, when: [bogus]}\n')).toEqual(['retry when contains unknown values: bogus']);
    expect(await errors('job:\n  script: x\n  retry: soon\n')).toEqual(['retry config has to be either an integer or a hash']);
  });

  it('reads timeouts in human words, at most a month', async () => {
    const j = await jobs('a:\n  script: x\n  timeout: 1h 30m\nb:\n  script: x\n  timeout: 2 hours and 20 minutes\nc:\n  script: x\n  timeout: 3600\n');
    expect([j.a.timeout, j.b.timeout, j.c.timeout]).toEqual([5400, 8400, 3600]);
    expect(await errors('job:\n  script: x\n  timeout: forever\n')).toEqual(['jobs:job:timeout config should be a duration']);
    expect(await errors('job:\n  script: x\n  timeout: 2 months\n')).toEqual(['jobs:job:timeout config should not exceed the limit']);
  });

  it('reads image, services, tags, environment, coverage and interruptible', async () => {
    const content = 'job:\n  script: x\n  image: {name: alpine, entrypoint: [""]}\n  services:\n    - postgres:15\n    - {name: redis, alias: cache, entrypoint: [sh], command: [redis-server]}\n  tags: [docker, linux]\n  environment: {name: review/$CI_COMMIT_REF_NAME, action: stop}\n  coverage: \'/Coverage: \\d+\\.\\d+%/\'\n  interruptible: true\nplain:\n  script: x\n  environment: production\n';
    const j = await jobs(content);
    expect(j.job).toMatchObject({
      image: { name: 'alpine', entrypoint: [''] },
      services: [{ name: 'postgres:15' }, { name: 'redis', alias: 'cache', entrypoint: ['sh'], command: ['redis-server'] }],
      tags: ['docker', 'linux'],
      environment: { name: 'review/$CI_COMMIT_REF_NAME', action: 'stop' },
      coverage: '/Coverage: \\d+\\.\\d+%/',
      interruptible: true,
    });
    expect(j.plain.environment).toEqual({ name: 'production', action: 'start' });
  });

  it('reads artifacts with JUnit reports, and refuses unknown keys and values', async () => {
    const j = await jobs('job:\n  script: x\n  artifacts:\n    name: bin\n    paths: [bin/]\n    exclude: [bin/*.o]\n    untracked: true\n    when: always\n    expire_in: 1 week\n    reports:\n      junit: [a.xml, b.xml]\nsingle:\n  script: x\n  artifacts:\n    reports: {junit: report.xml}\n');
    expect(j.job.artifacts).toEqual({ name: 'bin', paths: ['bin/'], exclude: ['bin/*.o'], untracked: true, when: 'always', expireIn: '1 week', reports: { junit: ['a.xml', 'b.xml'] } });
    expect(j.single.artifacts).toEqual({ paths: [], exclude: [], untracked: false, when: 'on_success', reports: { junit: ['report.xml'] } });
    expect(await errors('job:\n  script: x\n  artifacts: {paths: [a], when: never, foo: 1}\n')).toEqual([
      'jobs:job:artifacts config contains unknown keys: foo',
      'jobs:job:artifacts when should be one of: on_success, on_failure, always',
    ]);
    expect(await errors('job:\n  script: x\n  artifacts: {reports: {junit: {a: 1}}}\n')).toEqual(['jobs:job:artifacts:reports junit should be an array of strings or a string']);
  });

  it('keeps trigger jobs (bridges) as data, and needs a trigger, script or run', async () => {
    const j = await jobs('child:\n  trigger:\n    include: child.yml\n    strategy: depend\ndownstream:\n  trigger: group/other\nbranch:\n  trigger: {project: group/other, branch: stable}\n');
    expect([j.child.trigger, j.downstream.trigger, j.branch.trigger]).toEqual([{ strategy: 'depend', include: 'child.yml' }, { project: 'group/other' }, { project: 'group/other', branch: 'stable' }]);
    expect(j.child.script).toEqual([]);
    expect(await errors('job:\n  stage: test\n')).toEqual(['jobs job config should implement the script:, run:, or trigger: keyword', 'jobs config should contain at least one visible job']);
    expect(await errors('job:\n  trigger: {strategy: depend}\n')).toEqual(['config must specify either project or include']);
    expect(await errors('job:\n  trigger: {project: a/b, strategy: wait}\n')).toEqual(['jobs:job:trigger strategy should be depend or mirror']);
    expect(await errors('job:\n  script: x\n  trigger: a/b\n')).toEqual(['jobs:job config contains unknown keys: trigger']);
  });

  it('runs parallel jobs as numbered or matrix instances, needs naming them all', async () => {
    const content = 'build:\n  stage: build\n  script: x\n  parallel: 3\ndeploy:\n  stage: deploy\n  script: x\n  parallel:\n    matrix:\n      - PROVIDER: aws\n        STACK: [monitoring, app]\n      - PROVIDER: gcp\ntest:\n  script: x\n  needs: [build]\n';
    const j = await jobs(content);
    expect(Object.keys(j)).toEqual(['build 1/3', 'build 2/3', 'build 3/3', 'deploy: [aws, monitoring]', 'deploy: [aws, app]', 'deploy: [gcp]', 'test']);
    expect(j['deploy: [aws, app]'].variables).toEqual([{ key: 'PROVIDER', value: 'aws' }, { key: 'STACK', value: 'app' }]);
    expect(j.test.needs?.map((n) => n.name)).toEqual(['build 1/3', 'build 2/3', 'build 3/3']);
    expect(await errors('job:\n  script: x\n  parallel: 201\n')).toEqual(['jobs:job:parallel config must be less than or equal to 200']);
  });
});

describe('needs and dependencies', () => {
  it('reads needs as names or {job, artifacts, optional}; none is null, [] starts at once', async () => {
    const j = await jobs('a:\n  stage: build\n  script: x\nb:\n  script: x\n  needs: [a]\nc:\n  script: x\n  needs: [{job: a, artifacts: false}]\nd:\n  script: x\n  needs: []\ne:\n  script: x\n');
    expect([j.b.needs, j.c.needs, j.d.needs, j.e.needs]).toEqual([[{ name: 'a', artifacts: true, optional: false }], [{ name: 'a', artifacts: false, optional: false }], [], null]);
  });

  const NEEDS_ERRORS: [string, string][] = [
    ['a:\n  script: x\n  needs: [ghost]\n', 'a job: undefined need: ghost'],
    ['a:\n  stage: build\n  script: x\n  needs: [b]\nb:\n  stage: test\n  script: x\n', 'a job: need b is not defined in current or prior stages'],
    ['a:\n  script: x\nb:\n  script: x\n  needs: [a, a]\n', 'b has the following needs duplicated: a.'],
    ['a:\n  script: x\n  needs: [b]\nb:\n  script: x\n  needs: [a]\n', 'The pipeline has circular dependencies: topological sort failed: ["a", "b"]'],
    ['a:\n  script: x\n  needs: [a]\n', 'The pipeline has circular dependencies: self-dependency: a'],
    ['a:\n  script: x\n  needs: {job: [b]}\n', 'jobs:a:needs:need job should be a string'],
    ['a:\n  script: x\n  needs: [1]\n', 'jobs:a:needs:need has an unsupported type'],
  ];
  itReports('refuses needs on unknown jobs, later stages, duplicates and cycles', NEEDS_ERRORS);

  it('lets an optional need name a job that is not there', async () => {
    expect(await names('a:\n  script: x\n  needs: [{job: ghost, optional: true}]\n')).toEqual(['a']);
  });

  it('checks dependencies: known jobs of current or earlier stages, and part of needs when both are given', async () => {
    expect((await jobs('a:\n  stage: build\n  script: x\nb:\n  script: x\n  dependencies: [a]\n')).b.dependencies).toEqual(['a']);
    expect(await errors('b:\n  script: x\n  dependencies: [ghost]\n')).toEqual(['b job: undefined dependency: ghost']);
    expect(await errors('a:\n  stage: deploy\n  script: x\nb:\n  script: x\n  dependencies: [a]\n')).toEqual(['b job: dependency a is not defined in current or prior stages']);
    expect(await errors('a:\n  script: x\nc:\n  script: x\nb:\n  script: x\n  needs: [a]\n  dependencies: [a, c]\n')).toEqual(['jobs:b dependencies the c should be part of needs']);
  });

  it('refuses a stage that is not declared, naming the available ones', async () => {
    expect(await errors('stages: [build]\njob:\n  stage: deploy\n  script: x\n')).toEqual(['job job: chosen stage deploy does not exist; available stages are .pre, build, .post']);
  });

  it('checks environment:on_stop', async () => {
    expect(await errors('deploy:\n  script: x\n  environment: {name: review, on_stop: stop}\n')).toEqual(['deploy job: on_stop job stop is not defined']);
    expect(await errors('deploy:\n  script: x\n  environment: {name: review, on_stop: stop}\nstop:\n  script: x\n  environment: {name: review}\n')).toEqual([
      'deploy job: on_stop job stop needs to have action stop defined',
    ]);
    expect(await names('deploy:\n  script: x\n  environment: {name: review, on_stop: stop}\nstop:\n  script: x\n  when: manual\n  environment: {name: review, action: stop}\n')).toEqual(['deploy', 'stop']);
  });
});

describe('static planning (GitLab lint without dry run)', () => {
  it('keeps every job, with its own `when`, and no rule evaluated', async () => {
    const content = "never:\n  script: x\n  rules:\n    - when: never\nmr:\n  script: x\n  when: manual\n  only: [merge_requests]\n";
    expect(await names(content)).toEqual([]);
    const result = await plan(content, { static: true });
    expect(result.jobs.map((j) => [j.name, j.when, j.allowFailure, j.only])).toEqual([
      ['never', 'on_success', false, null],
      ['mr', 'manual', true, { refs: ['merge_requests'] }],
    ]);
  });
});
