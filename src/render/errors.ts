import { OhsError, type OhsErrorOptions } from '../errors.js';

/**
 * A value a report handed to the renderers that does not fit its column's type (a string in a
 * money column, cents that are not whole, a date that is not a date). A bug in the report, not in
 * the data: the message names the sheet, the row and the column so the report can be fixed.
 */
export class RenderValueError extends OhsError {
  override name = 'RenderValueError';
  constructor(message: string, options: OhsErrorOptions = {}) {
    super('RENDER_INVALID_VALUE', message, options);
  }
}

/** Report options `writeReport` cannot use (no format, a name that is not a file name). */
export class RenderOptionsError extends OhsError {
  override name = 'RenderOptionsError';
  override readonly exitCode = 2;
  constructor(message: string, options: OhsErrorOptions = {}) {
    super('RENDER_INVALID_OPTIONS', message, options);
  }
}
