/**
 * A job log's ANSI colours and styles as HTML, as GitLab's Gitlab::Ci::Ansi2html renders them (`CiJobTrace.htmlSummary`):
 * text in `<span class="term-fg-red term-bold">` runs, `<` escaped, line ends as `<br/>`, collapsible sections as
 * GitLab's `section-start`/`section-end` markers and `js-s-<name>` classes, every other control sequence dropped
 * (runner timestamps, which GitLab 16.3 did not know, are left as text). Pure: text in, HTML out.
 */

const COLOR = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'];
const STYLES = [
  ['bold', 0x01],
  ['italic', 0x02],
  ['underline', 0x04],
  ['conceal', 0x08],
  ['cross', 0x10],
] as const;
/** Colour commands by their tens: which colour they set, and the class prefix. */
const COLOR_COMMANDS: Record<number, ['fg' | 'bg', string]> = { 3: ['fg', 'fg'], 4: ['bg', 'bg'], 9: ['fg', 'fg-l'], 10: ['bg', 'bg-l'] };
const STYLE = Object.fromEntries(STYLES) as Record<(typeof STYLES)[number][0], number>;

/** GitLab's build_trace_section_regex: `section_start:<unix time>:<name>\r\e[0K`. */
const SECTION = /^section_(start|end):(\d+):([a-zA-Z0-9_.-]+)\r\x1b\[0K/;
const SEQUENCE = /^\x1b([@-_])(.*?)([@-~])/;
/** An escape sequence cut off by the end of the line: the rest of the line is dropped. */
const CUT_SEQUENCE = /^\x1b(([@-_])(.*?)?)?$/;

class Converter {
  private out = '';
  private openTags = 0;
  private fg: string | null = null;
  private bg: string | null = null;
  private styleMask = 0;
  private readonly sections: string[] = [];
  private lineInSection = 0;

  convert(text: string): string {
    for (const line of text.match(/[^\n]*\n|[^\n]+$/g) ?? []) {
      let rest = line;
      while (rest.length) {
        let m: RegExpExecArray | null;
        let size: number;
        if ((m = SECTION.exec(rest))) {
          this.section(m[1], m[2], m[3]);
          size = m[0].length;
        } else if ((m = SEQUENCE.exec(rest))) {
          this.sequence(m[1], m[2], m[3]);
          size = m[0].length;
        } else if (CUT_SEQUENCE.test(rest)) {
          break;
        } else if (rest.startsWith('<')) {
          this.writeInTag('&lt;');
          size = 1;
        } else if ((m = /^\r?\n/.exec(rest))) {
          this.newLine();
          size = m[0].length;
        } else {
          const char = String.fromCodePoint(rest.codePointAt(0)!);
          this.writeInTag(char);
          size = char.length;
        }
        rest = rest.slice(size);
      }
    }
    this.closeOpenTags();
    return this.out;
  }

  private newLine() {
    this.writeInTag('<br/>');
    // A section's header line is a span of its own.
    if (this.sections.length && this.lineInSection === 0) this.closeOpenTags();
    this.lineInSection += 1;
  }

  private section(action: string, timestamp: string, name: string) {
    const section = name.toLowerCase().replace(/[^a-z0-9]/g, '-');
    if (action === 'start') {
      if (this.sections.includes(section)) return;
      this.sections.push(section);
      this.writeRaw(`<div class="section-start" data-timestamp="${timestamp}" data-section="${this.sections.join(' ')}" role="button"></div>`);
      this.lineInSection = 0;
    } else if (this.sections.includes(section)) {
      // Closes every section up to this one.
      while (this.sections.length) {
        this.writeRaw(`<div class="section-end" data-section="${this.sections.join(' ')}"></div>`);
        if (this.sections.pop() === section) break;
      }
    }
  }

  /** Only SGR sequences (`\e[…m`) change anything; the others are dropped. */
  private sequence(indicator: string, params: string, terminator: string) {
    if (indicator !== '[' || terminator !== 'm') return;
    this.closeOpenTags();
    // Ruby's split(';') drops trailing empty fields: `\e[m` and `\e[;m` reset.
    const commands = params.split(';');
    while (commands.length && commands[commands.length - 1] === '') commands.pop();
    if (!commands.length) return this.reset();
    while (commands.length) this.command(commands.shift()!, commands);
  }

  private command(command: string, stack: string[]) {
    // Ruby calls `on_<command>`: only a canonical number (`1`, not `01`) names one.
    const n = String(Number(command)) === command ? Number(command) : NaN;
    if (n === 0) this.reset();
    else if (n === 1) this.styleMask |= STYLE.bold;
    else if (n === 3) this.styleMask |= STYLE.italic;
    else if (n === 4) this.styleMask |= STYLE.underline;
    else if (n === 8) this.styleMask |= STYLE.conceal;
    else if (n === 9) this.styleMask |= STYLE.cross;
    else if (n === 21 || n === 22) this.styleMask &= ~STYLE.bold;
    else if (n === 23) this.styleMask &= ~STYLE.italic;
    else if (n === 24) this.styleMask &= ~STYLE.underline;
    else if (n === 28) this.styleMask &= ~STYLE.conceal;
    else if (n === 29) this.styleMask &= ~STYLE.cross;
    else if (n === 38) this.fg = xtermClass(stack, 'fg') ?? this.fg;
    else if (n === 48) this.bg = xtermClass(stack, 'bg') ?? this.bg;
    else {
      // 30-37 and 39 set the foreground, 40-47 and 49 the background; 90-… and 100-… their light variants.
      const color = COLOR_COMMANDS[Math.floor(n / 10)];
      const index = n % 10;
      if (color && index !== 8) this[color[0]] = colorClass(index, color[1]);
    }
  }

  private reset() {
    this.fg = null;
    this.bg = null;
    this.styleMask = 0;
  }

  private writeInTag(data: string) {
    if (this.openTags === 0) this.openNewTag();
    this.out += data;
  }

  private writeRaw(data: string) {
    this.closeOpenTags();
    this.out += data;
  }

  private openNewTag() {
    const classes: string[] = [];
    if (this.fg !== null) {
      // Bold coloured text in the light variant, as most terminals show it (and, as GitLab's, for good).
      if (this.styleMask & STYLE.bold) this.fg = this.fg.replace(/fg-([a-z]{2,})/, 'fg-l-$1');
      classes.push(this.fg);
    }
    if (this.bg !== null) classes.push(this.bg);
    for (const [name, flag] of STYLES) if (this.styleMask & flag) classes.push(`term-${name}`);
    if (this.sections.length) classes.push('section', this.lineInSection === 0 ? 'section-header' : 'line', ...this.sections.map((s) => `js-s-${s}`));
    this.closeOpenTags();
    this.out += classes.length ? `<span class="${classes.join(' ')}">` : '<span>';
    this.openTags += 1;
  }

  private closeOpenTags() {
    this.out += '</span>'.repeat(this.openTags);
    this.openTags = 0;
  }
}

/** `term-fg-red`, `term-bg-l-blue`; null for an index with no colour (9, as in 39 and 49: the default). */
function colorClass(index: number, prefix: string): string | null {
  const name = COLOR[index];
  return name === undefined ? null : `term-${prefix}-${name}`;
}

/** `38;5;<n>` / `48;5;<n>`: `xterm-fg-<n>`, consuming the two parameters. */
function xtermClass(stack: string[], prefix: string): string | null {
  if (stack.length < 2 || stack[0] !== '5') return null;
  stack.shift();
  const index = Number.parseInt(stack.shift()!, 10) || 0;
  return index >= 0 && index <= 255 ? `xterm-${prefix}-${index}` : null;
}

export function ansiToHtml(text: string): string {
  return new Converter().convert(text);
}

/** The last `lines` lines of a log (each with its line end), at most `maxBytes` of them: GitLab's `raw(last_lines:, max_size:)`. */
export function lastLines(text: Buffer, lines: number, maxBytes: number): string {
  const all = text.toString('utf8').match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const tail = Buffer.from(all.slice(-lines).join(''));
  return (tail.length > maxBytes ? tail.subarray(tail.length - maxBytes) : tail).toString('utf8');
}
