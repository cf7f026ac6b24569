import cliProgress from 'cli-progress';
import type { StreamProgress } from './types.js';

/**
 * Progress of the streams: bars on a TTY (stderr), nothing while running otherwise (each stream
 * ends with one summary line in the log instead).
 */
export interface ProgressBoard {
  stream(name: string): StreamProgress;
  stop(): void;
}

export function progressBoard(enabled = process.stderr.isTTY === true): ProgressBoard {
  if (!enabled) {
    return { stream: () => ({ add: () => {} }), stop: () => {} };
  }
  const bars = new cliProgress.MultiBar(
    {
      stream: process.stderr,
      clearOnComplete: false,
      hideCursor: true,
      format: ' {name} | {value} records | {duration}s',
    },
    cliProgress.Presets.shades_classic,
  );
  return {
    stream(name) {
      const bar = bars.create(1, 0, { name: name.padEnd(10) });
      let done = 0;
      return {
        add(n) {
          done += n;
          bar.setTotal(Math.max(done, 1));
          bar.update(done, { name: name.padEnd(10) });
        },
      };
    },
    stop: () => bars.stop(),
  };
}
