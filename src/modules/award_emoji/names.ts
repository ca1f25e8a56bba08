/**
 * The emoji table (GitLab's TanukiEmoji): every emoji's name, character, code points, description and Unicode
 * version, from the `emojibase-data` package (MIT): its JoyPixels shortcodes, EmojiOne's names as GitLab's
 * gemojione-derived alpha codes are (`thumbsup`, `slight_smile`, `100`, `thumbsup_tone1`), the first of an emoji's
 * shortcodes its name and the others (with GitHub's, `slightly_smiling_face`) its aliases, but for the emoji whose
 * EmojiOne 2 name (GitLab's) JoyPixels later demoted to an alias (`cop`, `runner`, `iphone`). Read once, on first use.
 * A name is given without colons; `:smile:` is read as `smile`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** One emoji as GitLab's AwardEmoji type shows it. */
export interface Emoji {
  name: string;
  /** The character (TanukiEmoji's `codepoints`), without variation selectors. */
  char: string;
  /** Its code points in lowercase hexadecimal joined by `-` (TanukiEmoji's `hex`). */
  hex: string;
  /** Unicode's description of it (CLDR's English label in emojibase). */
  description: string;
  /**
   * The Unicode version that brought it as an emoji, `6.0`, `8.0`, `13.1` (emojibase knows emoji versions, not code
   * points' ages: a character older than its emoji, 🙂 of Unicode 7.0 made an emoji in 8.0, says the later).
   */
  unicodeVersion: string;
}

interface Table {
  byName: Map<string, Emoji>;
  aliases: Map<string, string>;
}

interface DataEntry {
  hexcode: string;
  label: string;
  version: number;
  skins?: DataEntry[];
}

/**
 * Emoji versions to the Unicode version that brought them (emoji 1.0 and 2.0 came with Unicode 8.0, 3.0 and 4.0
 * with 9.0, 5.0 with 10.0; from 11 the numbers are the same; 0.6 and 0.7 are Unicode 6.0 and 7.0, and 0, the
 * regional indicators, Unicode 6.0 as well).
 */
function unicodeVersion(emojiVersion: number): string {
  const v = emojiVersion === 0 ? 6 : emojiVersion < 1 ? emojiVersion * 10 : emojiVersion <= 2 ? 8 : emojiVersion <= 4 ? 9 : emojiVersion < 11 ? 10 : emojiVersion;
  return Number.isInteger(v) ? `${v}.0` : String(Math.round(v * 10) / 10);
}

/** EmojiOne 2 names, GitLab's, that JoyPixels keeps only as aliases of a newer name (`police_officer`): names here. */
const EMOJIONE_NAMES = new Set(['cop', 'guardsman', 'spy', 'runner', 'walking', 'car', 'boat', 'castle', 'iphone', 'memo', 'spiral_calendar_pad', 'shoe', 'stop_sign', 'large_blue_circle']);

const list = (codes: string | string[] | undefined): string[] => (codes === undefined ? [] : typeof codes === 'string' ? [codes] : codes);

let table: Table | null = null;

function load(): Table {
  if (table) return table;
  const require = createRequire(import.meta.url);
  const read = <T>(file: string): T => JSON.parse(readFileSync(require.resolve(`emojibase-data/en/${file}`), 'utf8')) as T;
  const data = read<DataEntry[]>('data.json');
  const joypixels = read<Record<string, string | string[]>>('shortcodes/joypixels.json');
  const github = read<Record<string, string | string[]>>('shortcodes/github.json');
  const byName = new Map<string, Emoji>();
  const aliases = new Map<string, string>();
  const entries = data.flatMap((e) => [e, ...(e.skins ?? [])]);
  for (const entry of entries) {
    const codes = list(joypixels[entry.hexcode]);
    const name = codes.find((c) => EMOJIONE_NAMES.has(c)) ?? codes[0];
    const others = codes.filter((c) => c !== name);
    if (!name || byName.has(name)) continue;
    const points = entry.hexcode.split('-').map((h) => parseInt(h, 16)).filter((p) => p !== 0xfe0f);
    byName.set(name, {
      name,
      char: String.fromCodePoint(...points),
      hex: points.map((p) => p.toString(16)).join('-'),
      description: entry.label,
      unicodeVersion: unicodeVersion(entry.version),
    });
    for (const alias of [...others, ...list(github[entry.hexcode])]) if (alias !== name && !aliases.has(alias)) aliases.set(alias, name);
  }
  // A name is never read as an alias of another.
  for (const name of byName.keys()) aliases.delete(name);
  table = { byName, aliases };
  return table;
}

/** The emoji of a name (not an alias), or undefined. */
export const emojiNamed = (name: string): Emoji | undefined => load().byName.get(name);

/** AwardEmojis::BaseService#normalize_name: the name an alias stands for, colons dropped; anything else as given. */
export function normalizeName(name: string): string {
  const bare = /^:[^:\s]+:$/.test(name) ? name.slice(1, -1) : name;
  return load().aliases.get(bare) ?? bare;
}

/** Whether the name is an emoji's (Gitlab::EmojiNameValidator). */
export const isEmojiName = (name: string): boolean => load().byName.has(name);

/** The code points of a name's emoji (TanukiEmoji's `hex`, GraphQL's `unicode`), or null for no emoji's name. */
export const unicodeOf = (name: string): string | null => emojiNamed(name)?.hex ?? null;
