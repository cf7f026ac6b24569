import { Writable } from 'node:stream';
import { type DestinationStream, type Logger, pino } from 'pino';
import { logFileDestination, terminalDestination } from './terminal.js';
import { pinoPretty } from './util/pino-pretty.js';

export type { Logger };

/**
 * Paths never written to a log line: credentials and personal data. Log calls pass structured
 * objects; these paths are censored wherever they appear at the top level or one level down.
 */
export const redactPaths = [
  'token',
  'authorization',
  'headers.authorization',
  'ssn',
  'dateOfBirth',
  'id_birthdate',
  'id_licenseNumber',
  'o_dateOfBirth',
  '*.token',
  '*.authorization',
  '*.ssn',
  '*.dateOfBirth',
  '*.id_birthdate',
  '*.id_licenseNumber',
  '*.o_dateOfBirth',
];

/**
 * Whoever draws on the terminal (progress bars) while it is shown: log text is handed to it, so
 * it can print the text above what it draws instead of both writing over each other.
 */
export interface TerminalOwner {
  print(text: string): void;
}

let owner: TerminalOwner | undefined;

/** Makes `o` the terminal's owner until the returned function is called. */
export function ownTerminal(o: TerminalOwner): () => void {
  owner = o;
  return () => {
    if (owner === o) owner = undefined;
  };
}

/** stderr, or the terminal's owner while there is one. */
export function terminalStream(target: NodeJS.WritableStream = process.stderr): Writable {
  return new Writable({
    write(chunk: Buffer | string, _enc, done) {
      const text = chunk.toString();
      if (owner !== undefined) owner.print(text);
      else target.write(text);
      done();
    },
  });
}

export interface LoggerOptions {
  level: string;
  /**
   * `text`: warnings grouped by kind for the command's summary, info left to it (src/terminal.ts);
   * `json`: every line as NDJSON on stderr, for machines; `pretty`: every line, readable. Absent:
   * the former default (pretty on a TTY, else NDJSON), which tests and tools building a logger use.
   */
  format?: 'text' | 'json' | 'pretty';
  /** Every line as JSON appended to this file too (mode 0600 when created). */
  file?: string | null;
  /** Human-readable lines; default: when stderr is a TTY. */
  pretty?: boolean;
  /** Where lines go (a Writable, for pretty lines); default: stderr (stdout is kept for command output). */
  destination?: DestinationStream;
}

/**
 * A child's bindings are written with every line; a key passed again in the line's object would
 * appear twice in the JSON (`"stream":"user","stream":"user"`), which strict log pipelines reject.
 * Such a key is dropped from the object when it holds the same value, renamed (`stream_2`) when
 * it does not, so nothing is lost.
 */
function withoutBoundKeys(this: Logger, args: unknown[]): unknown[] {
  const [first, ...rest] = args;
  if (typeof first !== 'object' || first === null || first instanceof Error || Array.isArray(first))
    return args;
  const bound = this.bindings();
  const keys = Object.keys(first).filter((k) => k in bound);
  if (keys.length === 0) return args;
  const obj: Record<string, unknown> = { ...(first as Record<string, unknown>) };
  for (const k of keys) {
    if (obj[k] !== bound[k]) obj[`${k}_2`] = obj[k];
    delete obj[k];
  }
  return [obj, ...rest];
}

/** Where a logger's lines are shown: pretty or NDJSON on stderr (or the given destination). */
function screenDestination(options: LoggerOptions): DestinationStream {
  const tty = process.stderr.isTTY === true;
  const usePretty = options.pretty ?? (options.format === undefined ? tty : options.format === 'pretty');
  if (usePretty) {
    const destination =
      options.destination instanceof Writable ? options.destination : tty ? terminalStream() : 2;
    return pinoPretty()({ destination, colorize: tty, sync: true, ignore: 'pid,hostname' });
  }
  if (options.destination !== undefined) return options.destination;
  return tty ? terminalStream() : pino.destination({ dest: 2, sync: true });
}

/** A pino logger: NDJSON when not a TTY, pretty on a TTY, secrets and personal fields redacted. */
export function createLogger(options: LoggerOptions): Logger {
  const base = {
    level: options.level,
    redact: { paths: redactPaths, censor: '[redacted]' },
    hooks: {
      logMethod(this: Logger, args: Parameters<Logger['info']>, method: (...a: unknown[]) => void) {
        method.apply(this, withoutBoundKeys.call(this, args));
      },
    },
  };
  if (options.format === 'text') return pino(base, terminalDestination(options.file ?? null));
  const screen = screenDestination(options);
  if (options.file == null) return pino(base, screen);
  // Every line as JSON to the log file too, whatever the terminal shows (json or pretty).
  const file = logFileDestination(options.file);
  return pino(base, {
    write(line: string) {
      screen.write(line);
      file.write(line);
    },
  });
}
