declare module 'parse-prometheus-text-format' {
  /** One metric family, as prom2json gives it (gauges and counters: a value per sample). */
  export interface MetricFamily {
    name: string;
    help: string;
    type: string;
    metrics: { value: string; labels?: Record<string, string> }[];
  }
  export default function parsePrometheusTextFormat(text: string): MetricFamily[];
}
