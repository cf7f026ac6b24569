import type { Logger } from '../../log.js';
import type { ApiMetrics } from '../metrics.js';
import type { Dispatch, Outcome } from './types.js';

/**
 * The metrics layer: each attempt's answer (its status, time and bytes) or fault (its error
 * code) is counted, and logged at debug level (method, path, status, ms, attempt; never a body).
 */
export function metricsLayer(
  inner: Dispatch<Outcome>,
  metrics: ApiMetrics,
  logger: Logger | undefined,
): Dispatch<Outcome> {
  return (call) =>
    inner(call).then((o) => {
      const status = o.answer === undefined ? (o.code ?? 'UNKNOWN') : o.answer.status;
      metrics.response(status, o.ms, o.answer === undefined ? 0 : Buffer.byteLength(o.answer.text));
      logger?.debug(
        { method: call.req.method, path: call.req.path, status, ms: o.ms, attempt: call.attempt },
        'http',
      );
      return o;
    });
}
