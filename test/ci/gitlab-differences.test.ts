/** The engine where it differed from GitLab (issue 32): needs, globs, inputs, components and validations, as GitLab reads them. */
import { describe, expect, it } from 'vitest';
import { errors, jobs } from './support.js';

const MATRIX = `build:
  stage: build
  script: x
  parallel:
    matrix:
      - OS: [linux]
        ARCH: [amd64, arm64]
`;

describe('needs: parallel: matrix', () => {
  it('needs only the instances the selector names', async () => {
    const j = await jobs(`${MATRIX}test:\n  script: x\n  needs:\n    - job: build\n      parallel:\n        matrix:\n          - OS: linux\n            ARCH: arm64\n`);
    expect(j.test.needs).toEqual([{ name: 'build: [linux, arm64]', artifacts: true, optional: false }]);
  });

  it('maps $[[ matrix.X ]] to the needing instance’s own values', async () => {
    const content = `${MATRIX}test:\n  script: x\n  parallel:\n    matrix:\n      - OS: [linux]\n        ARCH: [amd64, arm64]\n  needs:\n    - job: build\n      parallel:\n        matrix:\n          - OS: ['$[[ matrix.OS ]]']\n            ARCH: ['$[[matrix.ARCH]]']\n`;
    const j = await jobs(content);
    expect(j['test: [linux, amd64]'].needs).toEqual([{ name: 'build: [linux, amd64]', artifacts: true, optional: false }]);
    expect(j['test: [linux, arm64]'].needs).toEqual([{ name: 'build: [linux, arm64]', artifacts: true, optional: false }]);
  });

  it('refuses an unknown matrix identifier and a selector matching no instance, in GitLab’s words', async () => {
    const unknown = `${MATRIX}test:\n  script: x\n  parallel:\n    matrix:\n      - OS: [linux]\n        ARCH: [amd64, arm64]\n  needs:\n    - job: build\n      parallel:\n        matrix:\n          - OS: ['$[[ matrix.OS ]]']\n            MISSING: ['$[[ matrix.NONEXISTENT ]]']\n`;
    expect(await errors(unknown)).toEqual(["test job: 'NONEXISTENT' does not exist in matrix configuration"]);
    const unmatched = `${MATRIX}test:\n  script: x\n  needs:\n    - job: build\n      parallel:\n        matrix:\n          - OS: windows\n            ARCH: amd64\n`;
    expect(await errors(unmatched)).toEqual(['test job: undefined need: build: [windows, amd64]']);
  });
});

describe('needs from !reference', () => {
  it('flattens a nested list', async () => {
    const j = await jobs('.shared:\n  needs: [a, b]\na:\n  stage: build\n  script: x\nb:\n  stage: build\n  script: x\nlint:\n  stage: build\n  script: x\nc:\n  script: x\n  needs: [lint, !reference [.shared, needs]]\n');
    expect(j.c.needs!.map((n) => n.name)).toEqual(['lint', 'a', 'b']);
  });
});

describe('include: local wildcards and rules: exists globs', () => {
  const files = {
    'configs/a.yml': 'a:\n  script: x\n',
    'configs/sub/b.yml': 'b:\n  script: x\n',
    'configs/sub/deep/c.yml': 'c:\n  script: x\n',
    'top.yml': 'top:\n  script: x\n',
  };

  it('matches as GitLab’s search_files_by_wildcard_path: `**.yml` the folder and subfolders, `**/*.yml` subfolders only', async () => {
    expect(Object.keys(await jobs("include: 'configs/**.yml'\n", { files }))).toEqual(['a', 'b', 'c']);
    expect(Object.keys(await jobs("include: 'configs/**/*.yml'\n", { files }))).toEqual(['b', 'c']);
    expect(Object.keys(await jobs("include: '/configs/*.yml'\n", { files }))).toEqual(['a']);
  });

  it('matches exists: as File.fnmatch? with FNM_PATHNAME | FNM_DOTMATCH | FNM_EXTGLOB (`**` alone is `*`)', async () => {
    const rule = (glob: string) => `job:\n  script: x\n  rules:\n    - exists: ['${glob}']\n`;
    const present = async (glob: string) => Object.keys(await jobs(rule(glob), { files: { ...files, '.ci/.hidden.yml': '' } })).length === 1;
    expect(await present('**.yml')).toBe(true);
    expect(await present('configs/**.yml')).toBe(true);
    expect(await present('configs/sub/**.txt')).toBe(false);
    expect(await present('sub/**.yml')).toBe(false);
    expect(await present('**/deep/*.yml')).toBe(true);
    expect(await present('.ci/*.yml')).toBe(true);
    expect(await present('configs/{x,sub}/b.yml')).toBe(true);
  });
});

describe('validations', () => {
  it('refuses scripts nested more than 10 levels deep (through !reference chains too)', async () => {
    let content = '.s1:\n  script: [echo]\n';
    for (let i = 2; i <= 11; i++) content += `.s${i}:\n  script: [!reference [.s${i - 1}, script]]\n`;
    expect(await errors(`${content}job:\n  script: !reference [.s10, script]\n`)).toEqual([]);
    expect(await errors(`${content}job:\n  script: !reference [.s11, script]\n`)).toEqual(['jobs:job:script config should be a string or a nested array of strings up to 10 levels deep']);
  });

  it('refuses an empty script as blank', async () => {
    expect(await errors('job:\n  script: []\n')).toEqual(["jobs:job script can't be blank"]);
    expect(await errors("job:\n  script: ''\n")).toEqual(["jobs:job script can't be blank"]);
  });

  it('reads a variable without a value as an empty one, where a variable may be a hash', async () => {
    const j = await jobs('variables:\n  EMPTY:\njob:\n  script: x\n  variables:\n    ALSO: ~\n');
    expect(j.job.variables.filter((v) => v.key === 'EMPTY' || v.key === 'ALSO')).toEqual([
      { key: 'EMPTY', value: '' },
      { key: 'ALSO', value: '' },
    ]);
    expect(await errors('job:\n  script: x\n  rules:\n    - variables: {R: }\n')).toEqual(['jobs:job:rules:rule:variables:r config must be a string']);
  });
});

describe('spec: inputs', () => {
  const TEMPLATE = `spec:
  inputs:
    stage:
      default: test
    env:
      options: [staging, production]
    replicas:
      type: number
      default: 1
    verbose:
      type: boolean
      default: false
    needs:
      type: array
      default: []
    tag:
      regex: ^v\\d+$
      default: v1
---
"deploy-$[[ inputs.env ]]":
  stage: $[[ inputs.stage ]]
  script: echo $[[ inputs.replicas ]] replicas of $[[ inputs.tag | truncate(1,3) ]] to $[[ inputs.env | expand_vars ]]
  variables:
    VERBOSE: $[[ inputs.verbose ]]
  needs: $[[ inputs.needs ]]
  parallel: $[[ inputs.replicas ]]
`;
  const include = (inputs: string) => `stages: [build, test, deploy]\nbuild:\n  stage: build\n  script: x\ninclude:\n  - local: deploy.yml\n    inputs: ${inputs}\n`;
  const files = { 'deploy.yml': TEMPLATE };

  it('interpolates the include’s inputs, with the spec’s defaults and their types', async () => {
    const j = await jobs(include('{env: production, replicas: 2, needs: [build], stage: deploy}'), { files });
    const deploy = j['deploy-production 1/2'];
    expect(deploy.stage).toBe('deploy');
    expect(deploy.script).toEqual(['echo 2 replicas of 1 to production']);
    expect(deploy.needs).toEqual([{ name: 'build', artifacts: true, optional: false }]);
    expect(deploy.variables).toContainEqual({ key: 'VERBOSE', value: 'false' });
    expect(Object.keys(j).sort()).toEqual(['build', 'deploy-production 1/2', 'deploy-production 2/2']);
  });

  it('refuses wrong inputs in GitLab’s words', async () => {
    const one = async (inputs: string) => (await errors(include(inputs), { files }))[0];
    expect(await one('{replicas: 2}')).toBe('`deploy.yml`: `env` input: required value has not been provided');
    expect(await one('{env: dev}')).toBe('`deploy.yml`: `env` input: `dev` cannot be used because it is not in the list of allowed options');
    expect(await one('{env: staging, replicas: two}')).toBe('`deploy.yml`: `replicas` input: provided value is not a number');
    expect(await one('{env: staging, verbose: "yes"}')).toBe('`deploy.yml`: `verbose` input: provided value is not a boolean');
    expect(await one('{env: staging, needs: build}')).toBe('`deploy.yml`: `needs` input: provided value is not an array');
    expect(await one('{env: staging, tag: release}')).toBe('`deploy.yml`: `tag` input: provided value does not match required RegEx pattern');
    expect(await one('{env: staging, ghost: 1}')).toBe('`deploy.yml`: unknown input arguments: ghost');
    expect(await errors('include:\n  - local: plain.yml\n    inputs: {a: 1}\n', { files: { 'plain.yml': 'job:\n  script: x\n' } })).toEqual(['`plain.yml`: Given inputs not defined in the `spec` section of the included configuration file']);
    expect(await errors('spec:\n  inputs:\n    a:\n      default: x\n---\njob:\n  script: $[[ inputs.b ]]\n')).toEqual(['unknown interpolation key: `b`']);
    expect(await errors('spec:\n  inputs:\n    a:\n      default: x\n---\njob:\n  script: $[[ inputs.a | upcase ]]\n')).toEqual([
      'no function matching `upcase`: check that the function name, arguments, and types are correct',
    ]);
  });

  it('interpolates the pipeline’s own file with the defaults', async () => {
    expect(Object.keys(await jobs('spec:\n  inputs:\n    name:\n      default: hello\n---\n$[[ inputs.name ]]:\n  script: echo\n'))).toEqual(['hello']);
  });
});

describe('include: component', () => {
  const component = (files: Record<string, string>) => ({
    variables: { CI_SERVER_FQDN: 'gitlab.example.com' },
    projects: { 'group/components': { 'v1.0.0': files, main: files, '~latest': files } },
  });
  const TEMPLATE = 'spec:\n  inputs:\n    name:\n      default: lint\n---\n$[[ inputs.name ]]:\n  script: echo $[[ inputs.name ]]\n';

  it('reads templates/<name>.yml or templates/<name>/template.yml of the project at the version, with its inputs', async () => {
    const simple = await jobs("include:\n  - component: gitlab.example.com/group/components/lint@v1.0.0\n    inputs: {name: check}\n", component({ 'templates/lint.yml': TEMPLATE }));
    expect(simple.check.script).toEqual(['echo check']);
    const complex = await jobs('include:\n  - component: $CI_SERVER_FQDN/group/components/lint@main\n', component({ 'templates/lint/template.yml': TEMPLATE }));
    expect(Object.keys(complex)).toEqual(['lint']);
  });

  it('refuses what GitLab’s FetchService refuses, in its words', async () => {
    const refused = async (address: string) => (await errors(`include:\n  - component: ${address}\n`, component({ 'templates/lint.yml': TEMPLATE })))[0];
    expect(await refused('other.example.com/group/components/lint@v1.0.0')).toBe("Component 'other.example.com/group/components/lint@v1.0.0' - the component path is not supported");
    expect(await refused('gitlab.example.com/group/components/ghost@v1.0.0')).toBe("Component 'gitlab.example.com/group/components/ghost@v1.0.0' - content not found");
    expect(await refused('gitlab.example.com/group/nowhere/lint@v1.0.0')).toBe("Component 'gitlab.example.com/group/nowhere/lint@v1.0.0' - content not found");
    expect(await refused('gitlab.example.com/group/components/lint@~latest')).toBe(
      "Component 'gitlab.example.com/group/components/lint@~latest' - The ~latest version reference is not supported for non-catalog resources. Use a tag, branch, or commit SHA instead.",
    );
  });
});

describe('rules: exists comparisons', () => {
  it('counts more than 50,000 glob comparisons as a match, as GitLab’s Clause::Exists does', async () => {
    const many = Object.fromEntries(Array.from({ length: 25_001 }, (_, i) => [`f/${i}.txt`, '']));
    const rule = (globs: string) => `job:\n  script: x\n  rules:\n    - exists: ${globs}\n`;
    expect(Object.keys(await jobs(rule("['x/*.none', 'nothing/*']"), { files: many }))).toEqual(['job']);
    // `**/*.none` is an extension glob, a suffix test that is not counted.
    expect(Object.keys(await jobs(rule("['**/*.none', 'nothing/*']"), { files: many }))).toEqual([]);
    expect(Object.keys(await jobs(rule("['**/*.txt']"), { files: many }))).toEqual(['job']);
  });
});

describe('rules: exists: project', () => {
  const projects = { 'group/other': { HEAD: { 'Dockerfile': '' }, v2: { 'v2.txt': '' } } };
  const rule = (exists: string) => `job:\n  script: x\n  rules:\n    - exists: ${exists}\n`;

  it('looks at the files of another project, at its default branch or a ref', async () => {
    expect(Object.keys(await jobs(rule('{paths: [Dockerfile], project: group/other}'), { projects }))).toEqual(['job']);
    expect(Object.keys(await jobs(rule('{paths: [Dockerfile], project: group/other, ref: v2}'), { projects }))).toEqual([]);
    expect(Object.keys(await jobs(rule("{paths: ['*.txt'], project: group/other, ref: v2}"), { projects }))).toEqual(['job']);
  });

  it('fails the job’s rule in GitLab’s words when the project or ref is not there', async () => {
    expect(await errors(rule('{paths: [Dockerfile], project: group/ghost}'), { projects })).toEqual(['Failed to parse rule for job: rules:exists:project `group/ghost` not found or access denied']);
    expect(await errors(rule('{paths: [Dockerfile], project: group/other, ref: nope}'), { projects })).toEqual([
      'Failed to parse rule for job: rules:exists:ref `nope` is not a valid ref in project `group/other`',
    ]);
  });
});

describe('wildcard include entries', () => {
  it('keep their inputs for every match, and never include the file that holds the wildcard', async () => {
    const files = {
      'ci/a.yml': 'spec:\n  inputs:\n    suffix:\n      default: plain\n---\na-$[[ inputs.suffix ]]:\n  script: x\n',
      'ci/b.yml': "spec:\n  inputs:\n    suffix:\n---\ninclude: 'ci/*.yml'\nb-$[[ inputs.suffix ]]:\n  script: x\n",
    };
    // b.yml's own wildcard takes a.yml (with its default) and skips b.yml itself.
    expect(Object.keys(await jobs("include:\n  - local: 'ci/b.yml'\n    inputs: {suffix: two}\n", { files })).sort()).toEqual(['a-plain', 'b-two']);
    expect(Object.keys(await jobs("include:\n  - local: 'ci/*.yml'\n    inputs: {suffix: all}\n", { files })).sort()).toEqual(['a-all', 'a-plain', 'b-all']);
  });
});
