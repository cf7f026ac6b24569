import { OhsError, type OhsErrorOptions } from '../../errors.js';

/**
 * A report parameter (a common one such as `asOf`, or an option of `params.options`) that fails
 * validation. The message names the report and the parameter; scripts match on `code`.
 */
export class ReportParamError extends OhsError {
  override name = 'ReportParamError';
  override readonly exitCode = 2;
  /** The parameter at fault, e.g. `asOf` or `options.rollupMode`. */
  readonly param: string;

  constructor(report: string, param: string, message: string, options: OhsErrorOptions = {}) {
    super('REPORT_PARAM_INVALID', `${report}: ${param}: ${message}`, options);
    this.param = param;
  }
}
