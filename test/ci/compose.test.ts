/** Building the configuration: YAML anchors and scalars, `extends`, `!reference`, `include: local`, merged YAML. */
import { describe, expect, it } from 'vitest';
import { SHA, context, errors, jobs, plan, refSha } from './support.js';

describe('YAML as Ruby reads it', () => {
  it('expands anchors, aliases and merge keys, later keys winning', async () => {
    const content = '.defaults: &defaults\n  image: ruby\n  tags: [a]\n  script: [default]\njob:\n  <<: *defaults\n  script: [own]\nmany:\n  tags: [early]\n  <<: [*defaults, {image: alpine}]\n';
    const j = await jobs(content);
    expect(j.job).toMatchObject({ image: { name: 'ruby' }, tags: ['a'], script: ['own'] });
    expect(j.many).toMatchObject({ image: { name: 'ruby' }, tags: ['a'], script: ['default'] });
  });

  it("reads scalars by YAML 1.1 as Psych does: yes/no/on/off, octal, hex, sexagesimal; quoted text stays text", async () => {
    const j = await jobs('job:\n  script: x\n  interruptible: yes\n  variables:\n    SWITCH: on\n    ON: key\n    OCT: 010\n    HEX: 0x1F\n    SEX: 1:30\n    QUOTED: "yes"\n    FLOAT: 1.5\n    N: n\n');
    expect(j.job.interruptible).toBe(true);
    expect(Object.fromEntries(j.job.variables.map((v) => [v.key, v.value]))).toMatchObject({ SWITCH: 'true', true: 'key', OCT: '8', HEX: '31', SEX: '90', QUOTED: 'yes', FLOAT: '1.5', N: 'n' });
    expect(await errors('job:\n  script: x\n  variables:\n    N: [a]\n')).toEqual(['variable definition must be either a string or a hash']);
  });

  it('refuses unquoted dates and times, as safe_load does', async () => {
    expect(await errors('job:\n  script: x\n  variables: {D: 2024-01-31}\n')).toEqual(['Tried to load unspecified class: Date']);
    expect(await errors('job:\n  script: x\n  variables: {D: "2024-01-31"}\n')).toEqual([]);
  });

  it('reads Ruby symbol keys (`:script:`) as plain keys', async () => {
    expect((await jobs(':job:\n  :script: echo\n')).job.script).toEqual(['echo']);
  });

  it('writes the merged YAML as Ruby does: a --- start, unindented sequences, quoted strings that would read otherwise', async () => {
    const result = await plan("job:\n  script: ['yes', '1', 'a: b', echo]\n  variables: {EMPTY: '', NUM: 1}\n  cache: {}\n");
    expect(result.mergedYaml).toBe("---\njob:\n  script:\n  - 'yes'\n  - '1'\n  - 'a: b'\n  - echo\n  variables:\n    EMPTY: ''\n    NUM: 1\n  cache: {}\n");
  });
});

describe('extends', () => {
  it('deep-merges bases in order and the job over them: hashes merged, everything else replaced', async () => {
    const content = [
      '.base:',
      '  image: ruby',
      '  variables: {A: base, B: base}',
      '  script: [base]',
      '  tags: [base]',
      '.other:',
      '  extends: .base',
      '  variables: {B: other}',
      '  tags: [other]',
      'job:',
      '  extends: [.other, .more]',
      '  variables: {C: job}',
      '  script: [job]',
      '.more:',
      '  image: alpine',
      '',
    ].join('\n');
    const result = await plan(content);
    const job = result.jobs[0];
    expect(job).toMatchObject({ image: { name: 'alpine' }, script: ['job'], tags: ['other'] });
    expect(job.variables).toEqual([{ key: 'A', value: 'base' }, { key: 'B', value: 'other' }, { key: 'C', value: 'job' }]);
    expect(result.mergedYaml).toContain('job:\n  image: alpine\n  variables:\n    A: base\n    B: other\n    C: job\n  script:\n  - job\n  tags:\n  - other\n  extends:\n  - .other\n  - .more\n');
  });

  it('refuses unknown and non-hash bases, cycles and more than 10 levels, as GitLab words it', async () => {
    expect(await plan('job:\n  extends: .nope\n  script: x\n')).toMatchObject({ errors: ['job: unknown keys in `extends` (.nope)'], mergedYaml: null, includes: null });
    expect(await errors('.base: [a]\njob:\n  extends: .base\n  script: x\n')).toEqual(['job: invalid base hashes in `extends` (.base)']);
    expect(await errors('a:\n  extends: b\n  script: x\nb:\n  extends: a\n  script: y\n')).toEqual(['a: circular dependency detected in `extends`']);
    expect(await errors('a:\n  extends: a\n  script: x\n')).toEqual(['a: circular dependency detected in `extends`']);
    const chain = (n: number) => `job:\n  extends: .e1\n${Array.from({ length: n }, (_, i) => `.e${i + 1}:\n  ${i + 1 < n ? `extends: .e${i + 2}` : 'script: x'}\n`).join('')}`;
    // job and .e1 … .e10 extend (11 levels); an 11th extending base is too deep.
    expect((await plan(chain(11))).errors).toEqual([]);
    expect(await errors(chain(12))).toEqual(['.e11: nesting too deep in `extends`']);
  });

  it('stays fast when many jobs extend shared bases (each base extended once)', async () => {
    const bases = Array.from({ length: 10 }, (_, i) => `.b${i}:\n  extends: [${Array.from({ length: i }, (_, k) => `.b${k}`).join(', ') || '.root'}]\n  variables: {V${i}: x}\n`).join('');
    const content = `.root:\n  script: x\n${bases}${Array.from({ length: 200 }, (_, i) => `job${i}:\n  extends: [.b9, .b8]\n`).join('')}`;
    const started = Date.now();
    const result = await plan(content);
    expect(result.errors).toEqual([]);
    expect(result.jobs).toHaveLength(200);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('!reference', () => {
  it('takes a value, or a list item list, from another key, after extends', async () => {
    const content = '.setup:\n  script: [install]\n  vars: {A: a}\n.base:\n  after_script: [cleanup]\njob:\n  extends: .base\n  before_script:\n    - !reference [.setup, script]\n    - more\n  script: !reference [job, after_script]\n  variables: !reference [.setup, vars]\n';
    const j = await jobs(content);
    expect(j.job).toMatchObject({ beforeScript: ['install', 'more'], script: ['cleanup'], variables: [{ key: 'A', value: 'a' }] });
  });

  it("refuses missing, invalid and circular references in GitLab's words", async () => {
    expect(await plan('job:\n  script: !reference [.nope, script]\n')).toMatchObject({ errors: ['!reference [".nope", "script"] could not be found'], mergedYaml: null });
    expect(await errors('job:\n  script: !reference []\n')).toEqual(['!reference [] is not valid']);
    expect(await errors('job:\n  script: !reference [a, [b]]\n')).toEqual(['!reference ["a", ["b"]] is not valid']);
    expect(await errors('a:\n  script: !reference [b, script]\nb:\n  script: !reference [a, script]\n')).toEqual(['!reference ["b", "script"] is part of a circular chain']);
  });
});

describe('include', () => {
  const files = {
    'ci/build.yml': 'include: ci/nested.yml\nbuild:\n  stage: build\n  script: make\n  variables: {FROM: build}\n',
    'ci/nested.yml': 'nested:\n  script: nested\n',
    'ci/override.yml': 'test:\n  script: included\n  tags: [included]\n',
    'ci/opt/a.yml': 'a:\n  script: a\n',
    'ci/opt/b.yml': 'b:\n  script: b\n',
    'empty.yml': '   \n',
    'comment.yml': '# nothing\n',
    'list.yml': '- a\n',
    'broken.yml': 'job: [\n',
  };
  const meta = (location: string) => ({
    type: 'local',
    location,
    blob: `http://gitlab.example.com/group/project/-/blob/${SHA}/${location}`,
    raw: `http://gitlab.example.com/group/project/-/raw/${SHA}/${location}`,
    extra: {},
    context_project: 'group/project',
    context_sha: SHA,
  });

  it('merges included files (nested ones too) under the including file, which wins', async () => {
    const result = await plan('include:\n  - local: /ci/build.yml\n  - ci/override.yml\ntest:\n  script: own\n', { files });
    expect(result.errors).toEqual([]);
    expect(result.jobs.map((j) => j.name)).toEqual(['nested', 'build', 'test']);
    expect(result.jobs[2]).toMatchObject({ script: ['own'], tags: ['included'] });
    expect(result.includes).toEqual([meta('ci/build.yml'), meta('ci/nested.yml'), meta('ci/override.yml')]);
    expect(result.mergedYaml?.startsWith('---\nnested:\n')).toBe(true);
    expect(result.mergedYaml).not.toContain('include:');
  });

  it('expands variables in locations, wildcards over the repository, and include rules', async () => {
    const content = "include:\n  - local: ci/$NAME.yml\n  - local: 'ci/opt/*.yml'\n  - local: ci/override.yml\n    rules:\n      - if: $CI_COMMIT_TAG\n";
    const result = await plan(`${content}job:\n  script: x\n`, { files, variables: { NAME: 'nested' } });
    expect(result.includes?.map((i) => i.location)).toEqual(['ci/nested.yml', 'ci/opt/a.yml', 'ci/opt/b.yml']);
  });

  it("reports missing, empty, invalid and unsupported includes in GitLab's words, with no merged YAML", async () => {
    const cases: [string, string][] = [
      ['include: ci/missing.yml', 'Local file `ci/missing.yml` does not exist!'],
      ['include: empty.yml', 'Local file `empty.yml` is empty!'],
      ['include: comment.yml', 'Included file `comment.yml` does not have valid YAML syntax!'],
      ['include: list.yml', '`list.yml`: Invalid configuration format'],
      ['include: README.md', 'Included file `README.md` does not have YAML extension!'],
      ['include: {local: [a.yml]}', 'Included file `["a.yml"]` needs to be a string'],
      ['include: [1]', 'Each include must be a hash or a string'],
      ['include: {file: a.yml}', '`{"file":"a.yml"}` does not have a valid subkey for include. Valid subkeys are: `local`, `project`, `remote`, `template`, `artifact`, `component`'],
      ['include: {local: a.yml, remote: "https://x/a.yml"}', 'Each include must use only one of: `local`, `project`, `remote`, `template`, `artifact`, `component`'],
      ['include: {local: a.yml, rules: [{when: manual}]}', 'include:rules:rule when unknown value: manual'],
    ];
    for (const [content, error] of cases) {
      expect(await plan(`${content}\njob:\n  script: x\n`, { files })).toMatchObject({ errors: [error], mergedYaml: null, includes: null });
    }
    expect((await errors('include: broken.yml\njob:\n  script: x\n', { files }))[0]).toMatch(/^`broken.yml`: \(<unknown>\): /);
  });

  it('refuses remote, template and component includes by name, and project includes where no project can be read', async () => {
    const cases: [string, RegExp][] = [
      ['include: https://example.com/ci.yml', /^Remote include `https:\/\/example.com\/ci.yml` is not supported/],
      ['include: {template: Auto-DevOps.gitlab-ci.yml}', /^Template include `Auto-DevOps.gitlab-ci.yml` is not supported/],
      ['include: {project: group/other, file: ci.yml}', /^Project include `group\/other` is not supported/],
      ['include: {component: gitlab.com/org/comp/x@1.0}', /^Component include `gitlab.com\/org\/comp\/x@1.0` is not supported/],
    ];
    for (const [content, error] of cases) expect((await errors(`${content}\njob:\n  script: x\n`))[0]).toMatch(error);
  });

  it("includes other projects' files at a ref, their own local includes read from that project", async () => {
    const projects = {
      'shared/ci': {
        HEAD: { 'templates/build.yml': 'include: [common.yml, {local: "/lib/*.yml"}]\nbuild:\n  script: make\n', 'common.yml': 'common:\n  script: shared-common\n', 'lib/a.yml': 'lib_a:\n  script: a\n' },
        'v1.0': { 'templates/build.yml': 'build:\n  script: make-v1\n', 'templates/test.yml': 'test:\n  script: test-v1\n' },
      },
    };
    // A file of the pipeline's own project with the same name as the shared project's must not be read.
    const files = { 'common.yml': 'common:\n  script: own-common\n' };
    const ctx = context({ files, projects });
    const { planPipeline } = await import('../../src/ci/config/index.js');
    const head = await planPipeline('include:\n  project: shared/ci\n  file: /templates/build.yml\nown:\n  script: x\n', ctx);
    expect(head.errors).toEqual([]);
    expect(Object.fromEntries(head.jobs.map((j) => [j.name, j.script]))).toEqual({ build: ['make'], common: ['shared-common'], lib_a: ['a'], own: ['x'] });
    expect(ctx.reads).toEqual(['shared/ci:templates/build.yml', 'shared/ci:common.yml', 'shared/ci:lib/a.yml']);
    const sha = refSha('HEAD');
    expect(head.includes).toEqual([
      {
        type: 'file',
        location: 'templates/build.yml',
        blob: `http://gitlab.example.com/shared/ci/-/blob/${sha}/templates/build.yml`,
        raw: `http://gitlab.example.com/shared/ci/-/raw/${sha}/templates/build.yml`,
        extra: { project: 'shared/ci', ref: 'HEAD' },
        context_project: 'group/project',
        context_sha: SHA,
      },
      expect.objectContaining({ type: 'local', location: 'common.yml', blob: `http://gitlab.example.com/shared/ci/-/blob/${sha}/common.yml`, context_project: 'shared/ci', context_sha: sha }),
      expect.objectContaining({ type: 'local', location: 'lib/a.yml', context_project: 'shared/ci' }),
    ]);

    const pinned = await jobs('include:\n  - project: shared/ci\n    ref: $VERSION\n    file: [templates/build.yml, templates/test.yml]\n', { projects, variables: { VERSION: 'v1.0' } });
    expect(Object.fromEntries(Object.values(pinned).map((j) => [j.name, j.script]))).toEqual({ build: ['make-v1'], test: ['test-v1'] });
  });

  it("words GitLab's errors for other projects' files", async () => {
    const projects = { 'shared/ci': { HEAD: { 'empty.yml': '  \n', 'ok.yml': 'ok:\n  script: x\n' } } };
    const cases: [string, string][] = [
      ['{project: secret/ci, file: ci.yml}', 'Project `secret/ci` not found or access denied! Make sure any includes in the pipeline configuration are correctly defined.'],
      ['{project: shared/ci, ref: nope, file: ok.yml}', 'Project `shared/ci` reference `nope` does not exist!'],
      ['{project: shared/ci, file: missing.yml}', 'Project `shared/ci` file `missing.yml` does not exist!'],
      ['{project: shared/ci, file: empty.yml}', 'Project `shared/ci` file `empty.yml` is empty!'],
      ['{project: shared/ci, file: [ok.yml, 1]}', 'Included file `1` needs to be a string'],
      ['{project: shared/ci}', '`{"project":"shared/ci"}` does not have a valid subkey for include. Valid subkeys are: `local`, `project`, `remote`, `template`, `artifact`, `component`'],
    ];
    for (const [entry, error] of cases) expect(await errors(`include: ${entry}\njob:\n  script: x\n`, { projects })).toEqual([error]);
  });

  it('stops at 150 included files, whatever their nesting, and at self-inclusion loops', async () => {
    const many = Object.fromEntries(Array.from({ length: 151 }, (_, i) => [`f${i}.yml`, `j${i}:\n  script: x\n`]));
    const list = `include: [${Object.keys(many).join(', ')}]\n`;
    expect(await errors(list, { files: many })).toEqual(['Maximum of 150 nested includes are allowed!']);
    expect(await errors('include: loop.yml\njob:\n  script: x\n', { files: { 'loop.yml': 'include: loop.yml\n' } })).toEqual(['Maximum of 150 nested includes are allowed!']);
  });

  it('reads included files only through the context', async () => {
    const ctx = context({ files });
    const { planPipeline } = await import('../../src/ci/config/index.js');
    await planPipeline('include: ci/build.yml\n', ctx);
    expect(ctx.reads).toEqual(['ci/build.yml', 'ci/nested.yml']);
  });
});

describe('spec headers', () => {
  it('reads the configuration after a `spec:` header, its inputs interpolated (test/ci/gitlab-differences.test.ts)', async () => {
    expect((await jobs('spec:\n  inputs:\n    name: {default: a}\n---\njob:\n  script: echo $[[ inputs.name ]]\n')).job.script).toEqual(['echo a']);
    expect(await errors('spec:\n  description: no inputs\n---\njob:\n  script: x\n')).toEqual(['header:spec config contains unknown keys: description']);
    expect(await errors('include: t.yml\njob:\n  script: x\n', { files: { 't.yml': 'spec:\n  inputs:\n    a:\n---\nt:\n  script: $[[ inputs.a ]]\n' } })).toEqual([
      '`t.yml`: `a` input: required value has not been provided',
    ]);
  });
});
