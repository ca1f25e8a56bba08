/**
 * GitLab's Gitlab::QuickActions::Extractor: the commands of a text, each a line of its own that starts with `/name`
 * (a known command's name or alias, any case) and, after one space, its argument; lines inside fenced code blocks,
 * inline code spread over lines, HTML blocks and `>>>` quotes are left alone. The commands are removed from the text
 * (carriage returns dropped, trailing whitespace trimmed), in the order they appear. Substitutions (`/shrug`,
 * `/tableflip`) are replaced by their text instead.
 */
import { escapeRegExp } from '../../regexp.js';

/** One command found: its name as written (lower case) and its argument, when it has one. */
export interface ExtractedCommand {
  name: string;
  arg: string | null;
}


const patterns = new Map<string, RegExp>();

/** The extractor's one pattern for these names (Extractor#commands_regex), built once per set of names. */
function commandsPattern(names: readonly string[]): RegExp {
  // Longer names first, so `/labels` is not read as `/label` followed by text.
  const sorted = [...names].sort((a, b) => b.length - a.length);
  const key = sorted.join('|');
  let pattern = patterns.get(key);
  if (!pattern) {
    pattern = new RegExp(
      [
        // A fenced code block: ``` … ``` at line starts.
        '(?<code>^```.+?\\n```$)',
        // Inline code spread over lines.
        '(?<inline>^.*`\\n*.+?\\n*`$)',
        // An HTML block: <tag> … </tag>.
        '(?<html>^<[^>]+?>\\n.+?\\n<\\/[^>]+?>$)',
        // A quote block: >>> … >>>.
        '(?<quote>^>>>.+?\\n>>>$)',
        // A command on a line of its own.
        `(?:^\\/(?<cmd>${sorted.map(escapeRegExp).join('|')})(?:[ ](?<arg>[^\\n]*))?(?:\\s*\\n|$))`,
      ].join('|'),
      'gims',
    );
    patterns.set(key, pattern);
  }
  return pattern;
}

/**
 * The text without its commands, and the commands, as GitLab's Extractor#extract_commands answers; then its
 * substitutions (Extractor#perform_substitutions): each line that is one (`/shrug`, anything after it on the line
 * included, outside code, HTML and quotes) is replaced by its text, and recorded apart.
 */
export function extractCommands(
  text: string,
  names: readonly string[],
  substitutions: Readonly<Record<string, string>> = {},
): { content: string; commands: ExtractedCommand[]; substituted: ExtractedCommand[] } {
  const commands: ExtractedCommand[] = [];
  const substituted: ExtractedCommand[] = [];
  let content = text.replace(/\r/g, '');
  if (names.length) content = content.replace(commandsPattern(names), (whole: string, ...rest: unknown[]) => found(whole, rest, commands) ?? '');
  for (const [name, replacement] of Object.entries(substitutions)) {
    // SubstitutionDefinition#perform_substitution on the line matched: its end of line stays.
    const line = new RegExp(`/${escapeRegExp(name)}(?!\\S) ?(.*)$`, 'im');
    content = content.replace(commandsPattern([name]), (whole: string, ...rest: unknown[]) =>
      found(whole, rest, substituted) === null ? whole.replace(line, () => replacement) : whole,
    );
  }
  return { content: content.trimEnd(), commands, substituted };
}

/** A command the pattern matched, recorded (null), or the text it matched outside any command. */
function found(whole: string, rest: unknown[], into: ExtractedCommand[]): string | null {
  const groups = rest.at(-1) as Record<string, string | undefined>;
  if (groups.cmd === undefined) return whole;
  const arg = groups.arg?.trim();
  into.push({ name: groups.cmd.toLowerCase(), arg: arg ? arg : null });
  return null;
}
