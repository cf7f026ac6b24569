import { ownTerminal, type TerminalOwner } from '../log.js';
import type { StreamProgress } from './types.js';

/**
 * Progress of the streams: bars on a TTY (stderr), nothing while running otherwise (each stream
 * ends with one summary line in the log instead).
 *
 * While bars are shown, this board owns the terminal: log lines (see `ownTerminal` in log.ts) are
 * handed to it and printed above the bars, in the same write as the bars' redraw, so neither
 * overwrites the other. The counts come from the stream's own figures (records written to the
 * mirror, requests sent), not from what a runner says it fetched: a probe of 16 ids that finds
 * none sends 16 requests but adds no record.
 */
export interface ProgressBoard {
  stream(name: string, counts: () => StreamCounts): StreamProgress;
  stop(): void;
}

export interface StreamCounts {
  records: number;
  requests: number;
}

/** A terminal: a stream with `isTTY` and (usually) `columns`, as process.stderr is on a TTY. */
export type TtyStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

const REDRAW_MS = 250;

export function progressBoard(
  enabled = process.stderr.isTTY === true,
  out: TtyStream = process.stderr,
): ProgressBoard {
  if (!enabled) return { stream: () => ({ add: () => {} }), stop: () => {} };
  return new TerminalBoard(out);
}

class TerminalBoard implements ProgressBoard, TerminalOwner {
  private readonly rows: { name: string; counts: () => StreamCounts }[] = [];
  private readonly started = Date.now();
  /** Bar lines on screen below the cursor's home (the cursor sits on the line after them). */
  private drawn = 0;
  private stopped = false;
  private readonly timer: NodeJS.Timeout;
  private readonly release: () => void;

  constructor(private readonly out: TtyStream) {
    this.release = ownTerminal(this);
    this.timer = setInterval(() => this.redraw(''), REDRAW_MS);
    this.timer.unref();
  }

  stream(name: string, counts: () => StreamCounts): StreamProgress {
    this.rows.push({ name, counts });
    this.redraw('');
    // The bars are redrawn on a timer from the counts; a runner's tick needs no work here.
    return { add: () => {} };
  }

  /** Log text: printed above the bars, which are drawn again below it. */
  print(text: string): void {
    this.redraw(text);
  }

  stop(): void {
    if (this.stopped) return;
    clearInterval(this.timer);
    this.redraw('');
    this.stopped = true;
    this.drawn = 0;
    this.release();
  }

  private line(row: { name: string; counts: () => StreamCounts }): string {
    const c = row.counts();
    const secs = Math.round((Date.now() - this.started) / 1000);
    const text = ` ${row.name.padEnd(11)} | ${c.records} records | ${c.requests} requests | ${secs}s`;
    // Never wider than the terminal: a wrapped bar would throw off the count of lines to go up.
    return text.slice(0, Math.max(10, (this.out.columns || 80) - 1));
  }

  /** One write per frame: back to the first bar line, clear below, the log text, the bars. */
  private redraw(above: string): void {
    if (this.stopped) {
      this.out.write(above);
      return;
    }
    let frame = this.drawn > 0 ? `\x1b[${this.drawn}A\r\x1b[J` : '\r\x1b[J';
    if (above !== '') frame += above.endsWith('\n') ? above : `${above}\n`;
    const bars = this.rows.map((r) => this.line(r));
    for (const b of bars) frame += `${b}\n`;
    this.drawn = bars.length;
    this.out.write(frame);
  }
}
