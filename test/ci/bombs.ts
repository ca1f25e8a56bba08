/** `.gitlab-ci.yml` bombs (issue 23): each small as text, each far beyond GitLab's parsed-size bound once expanded. */
const JOB = 'job:\n  script: x\n';

export const BOMBS: Record<string, string> = {
  /** Billion laughs: nine levels, each a list of nine aliases of the level below. */
  laughs: `${['a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]']
    .concat(Array.from({ length: 8 }, (_, i) => `${'bcdefghi'[i]}: &${'bcdefghi'[i]} [${Array(9).fill(`*${'abcdefgh'[i]}`).join(', ')}]`))
    .join('\n')}\n${JOB}`,
  /** An alias chain: each anchor a list of the one before, three hundred deep. */
  chain: `a0: &a0 [x]\n${Array.from({ length: 300 }, (_, i) => `a${i + 1}: &a${i + 1} [*a${i}]`).join('\n')}\n${JOB}`,
  /** Merge keys that copy a mapping ten times a level, through a nested mapping Psych cannot share. */
  merge: `m0: &m0 {k0: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}\n${Array.from({ length: 30 }, (_, i) => {
    const sources = `[${Array(10).fill(`*m${i}`).join(', ')}]`;
    return `m${i + 1}: &m${i + 1} {<<: ${sources}, k${i + 1}: {<<: ${sources}}}`;
  }).join('\n')}\n${JOB}`,
  /** Deep anchors: `l1: &b1 [*b0, *b0]` … `l200`, 2^200 values. */
  deep: `base: &b0 [1]\n${Array.from({ length: 200 }, (_, i) => `l${i + 1}: &b${i + 1} [*b${i}, *b${i}]`).join('\n')}\n${JOB}`,
};
