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
