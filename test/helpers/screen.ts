import { Writable } from 'node:stream';

/**
 * A terminal screen, for checking what a program drew on a TTY: feeds on the bytes written and
 * applies what they do to the lines (text, \r, \n, cursor up, clear to the end of the line or
 * the screen); colours and cursor visibility are ignored. `lines()` is what a user would see.
 */
export class Screen {
  private rows: string[] = [''];
  private y = 0;
  private x = 0;

  feed(bytes: string): void {
    let i = 0;
    while (i < bytes.length) {
      const c = bytes[i] as string;
      if (c === '\x1b') {
        // ESC has been matched: the rest of a CSI sequence follows it.
        const m = /^\[(\??)(\d*(?:;\d*)*)([A-Za-z])/.exec(bytes.slice(i + 1));
        if (m === null) {
          i++;
          continue;
        }
        i += 1 + m[0].length;
        this.control(m[1] === '?', m[2] ?? '', m[3] as string);
        continue;
      }
      i++;
      if (c === '\n') {
        this.y++;
        this.x = 0; // a pty turns \n into \r\n
        while (this.rows.length <= this.y) this.rows.push('');
      } else if (c === '\r') this.x = 0;
      else {
        const row = (this.rows[this.y] ?? '').padEnd(this.x);
        this.rows[this.y] = row.slice(0, this.x) + c + row.slice(this.x + 1);
        this.x++;
      }
    }
  }

  private control(privateMode: boolean, args: string, op: string): void {
    if (privateMode) return;
    const n = Number(args.split(';')[0] || '1');
    const row = this.rows[this.y] ?? '';
    if (op === 'A') this.y = Math.max(0, this.y - n);
    else if (op === 'B') this.y += n;
    else if (op === 'G') this.x = n - 1;
    else if (op === 'K') {
      const mode = Number(args || '0');
      this.rows[this.y] =
        mode === 0 ? row.slice(0, this.x) : mode === 1 ? ' '.repeat(this.x) + row.slice(this.x) : '';
    } else if (op === 'J') {
      this.rows[this.y] = row.slice(0, this.x);
      this.rows.length = this.y + 1;
    }
    // m (colours) and anything else: no effect on the text
    while (this.rows.length <= this.y) this.rows.push('');
  }

  /** The screen's lines, trailing blanks trimmed, the empty last line dropped. */
  lines(): string[] {
    const out = this.rows.map((r) => r.trimEnd());
    while (out.length > 0 && out[out.length - 1] === '') out.pop();
    return out;
  }
}

/** A writable stream that says it is a TTY (as process.stderr does on a terminal) into a Screen. */
export function fakeTty(
  columns = 100,
): Writable & { isTTY: true; columns: number; screen: Screen; writes: string[] } {
  const screen = new Screen();
  const writes: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      const s = chunk.toString();
      writes.push(s);
      screen.feed(s);
      done();
    },
  });
  return Object.assign(stream, { isTTY: true as const, columns, screen, writes });
}
