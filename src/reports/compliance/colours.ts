import { palette } from '../../render/html/summary.js';

/** The colours of compliance's statuses on its charts: the text of the status is always beside them. */
export const statusColour: Record<string, string> = {
  MET: palette.green,
  ON_TRACK: palette.blue,
  PENDING_RESULTS: palette.orange,
  AT_RISK: palette.yellow,
  BEHIND: palette.vermillion,
  NOT_MET: palette.vermillion,
  STUCK: palette.vermillion,
  WARN: palette.orange,
  OK: palette.green,
};
