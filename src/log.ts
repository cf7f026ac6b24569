import { type DestinationStream, type Logger, pino } from 'pino';
import pretty from 'pino-pretty';

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

export interface LoggerOptions {
  level: string;
  /** Human-readable lines; default: when stderr is a TTY. */
  pretty?: boolean;
  /** Where lines go; default: stderr (stdout is kept for command output). */
  destination?: DestinationStream;
}

/** A pino logger: NDJSON when not a TTY, pretty on a TTY, secrets and personal fields redacted. */
export function createLogger(options: LoggerOptions): Logger {
  const base = { level: options.level, redact: { paths: redactPaths, censor: '[redacted]' } };
  const usePretty = options.pretty ?? process.stderr.isTTY === true;
  if (usePretty) {
    return pino(base, pretty({ destination: 2, colorize: true, sync: true, ignore: 'pid,hostname' }));
  }
  return pino(base, options.destination ?? pino.destination({ dest: 2, sync: true }));
}
