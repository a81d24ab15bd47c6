// A block of lines at the bottom of a terminal, redrawn in place: the cursor goes back up over the block,
// erases to the end of the screen, and writes the new block. Text written "above" scrolls away for good.
//
// Moving up by N lines only lands on the block's first line if the block is exactly N terminal rows, so
// every line is cut to the terminal's width (a wrapped line would be two rows) and the block to its height
// (rows scrolled off the top cannot be reached again).

export interface Terminal {
  write(text: string): unknown;
  columns?: number;
  rows?: number;
}

export class LiveRegion {
  private height = 0;

  constructor(private readonly out: Terminal) {}

  /** How many lines the block may have: one row stays free so the cursor line never scrolls it. */
  get maxLines(): number {
    return Math.max(3, (this.out.rows || 24) - 1);
  }

  /** Writes `above` for good, then the block as `lines`, in one write so no half-drawn frame shows. */
  update(above: string[], lines: string[]): void {
    const width = Math.max(20, (this.out.columns || 80) - 1);
    const block = lines.slice(0, this.maxLines).map((l) => fitWidth(l, width));
    let frame = this.height ? `\r\x1b[${this.height}A\x1b[J` : '';
    for (const line of above) frame += `${line}\n`;
    for (const line of block) frame += `${line}\n`;
    this.height = block.length;
    if (frame) this.out.write(frame);
  }

  /** Erases the block, leaving the cursor where it began. */
  clear(): void {
    this.update([], []);
  }
}

const ESCAPE = /\x1b\[[0-9;?]*[A-Za-z]/y;

/** Cuts a line to `width` visible characters; colour codes take no room and are kept closed. */
export function fitWidth(line: string, width: number): string {
  let visible = 0;
  let out = '';
  let coloured = false;
  for (let i = 0; i < line.length; ) {
    ESCAPE.lastIndex = i;
    const esc = ESCAPE.exec(line);
    if (esc) {
      out += esc[0];
      coloured = esc[0] !== '\x1b[0m';
      i += esc[0].length;
      continue;
    }
    const ch = String.fromCodePoint(line.codePointAt(i)!);
    if (ch === '\n' || ch === '\r') break;
    if (visible === width - 1 && i + ch.length < line.length && hasVisibleAfter(line, i + ch.length)) {
      return `${out}…${coloured ? '\x1b[0m' : ''}`;
    }
    out += ch;
    visible++;
    i += ch.length;
  }
  return out;
}

function hasVisibleAfter(line: string, from: number): boolean {
  return line.slice(from).replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').length > 0;
}
