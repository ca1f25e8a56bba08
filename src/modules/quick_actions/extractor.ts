/**
 * GitLab's Gitlab::QuickActions::Extractor: the commands of a text, each a line of its own that starts with `/name`
 * (a known command's name or alias, any case) and, after one space, its argument; lines inside fenced code blocks,
 * inline code spread over lines, HTML blocks and `>>>` quotes are left alone. The commands are removed from the text
 * (carriage returns dropped, trailing whitespace trimmed), in the order they appear.
 */

/** One command found: its name as written (lower case) and its argument, when it has one. */
export interface ExtractedCommand {
  name: string;
  arg: string | null;
}

const escape = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

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
        `(?:^\\/(?<cmd>${sorted.map(escape).join('|')})(?:[ ](?<arg>[^\\n]*))?(?:\\s*\\n|$))`,
      ].join('|'),
      'gims',
    );
    patterns.set(key, pattern);
  }
  return pattern;
}

/** The text without its commands, and the commands, as GitLab's Extractor#extract_commands answers. */
export function extractCommands(text: string, names: readonly string[]): { content: string; commands: ExtractedCommand[] } {
  const commands: ExtractedCommand[] = [];
  const source = text.replace(/\r/g, '');
  if (!names.length) return { content: source.trimEnd(), commands };
  const content = source.replace(commandsPattern(names), (whole: string, ...rest: unknown[]) => {
    const groups = rest.at(-1) as Record<string, string | undefined>;
    if (groups.cmd === undefined) return whole;
    const arg = groups.arg?.trim();
    commands.push({ name: groups.cmd.toLowerCase(), arg: arg ? arg : null });
    return '';
  });
  return { content: content.trimEnd(), commands };
}
