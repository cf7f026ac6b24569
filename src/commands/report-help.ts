import { z } from 'zod';
import type { ReportDefinition } from '../reports/index.js';

/** The schema under default, optional, nullable and preprocess/transform wrappers. */
function inner(s: z.ZodType): z.ZodType {
  let t = s;
  for (;;) {
    if (t instanceof z.ZodDefault || t instanceof z.ZodOptional || t instanceof z.ZodNullable)
      t = t.unwrap() as z.ZodType;
    else if (t instanceof z.ZodPipe) t = (t.in instanceof z.ZodTransform ? t.out : t.in) as z.ZodType;
    else return t;
  }
}

/** The type of an option as the help says it: `whole number 1 to 12`, `dueDate | invoiceDate`. */
export function typeText(schema: z.ZodType): string {
  const s = inner(schema);
  if (s instanceof z.ZodNumber) {
    const { minValue, maxValue, isInt } = s;
    const kind = isInt ? 'whole number' : 'number';
    return minValue !== null && maxValue !== null && Number.isFinite(maxValue)
      ? `${kind} ${minValue} to ${maxValue}`
      : kind;
  }
  if (s instanceof z.ZodBoolean) return 'true | false';
  if (s instanceof z.ZodEnum) return s.options.join(' | ');
  if (s instanceof z.ZodString) return 'text';
  if (s instanceof z.ZodArray) return `list of ${typeText(s.element as z.ZodType)} (comma-separated)`;
  if (s instanceof z.ZodObject) return `JSON {${Object.keys(s.shape).join(', ')}}`;
  if (s instanceof z.ZodRecord)
    return `JSON {${typeText(s.keyType as z.ZodType)}: ${typeText(s.valueType as z.ZodType)}}`;
  return 'JSON';
}

/** The default: a declared default value, or the `Default: ...` sentence of the description. */
function defaultText(schema: z.ZodType): string {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s.unwrap() as z.ZodType;
  if (s instanceof z.ZodDefault) {
    const v: unknown = s.def.defaultValue;
    return Array.isArray(v) ? v.join(',') : typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  return /(?:^|\s)Default: (.*?)\.?$/s.exec(schema.description ?? '')?.[1] ?? 'none';
}

/** The meaning: the description without its `Default:` sentence. */
const meaning = (schema: z.ZodType) => (schema.description ?? '').replace(/\s*Default: .*$/s, '');

/**
 * `ohs report NAME --help`: the report's options (`--option NAME=VALUE`, config `reports.options`),
 * each with its type, default and meaning, generated from its zod declaration; then `common`,
 * the command's own help, from its list of options.
 */
export function reportHelp(report: ReportDefinition, schema: z.ZodObject, common: string): string {
  const fields = Object.entries(schema.shape as Record<string, z.ZodType>);
  const rows = fields.flatMap(([name, s]) => [
    `  ${name}: ${typeText(s)}; default: ${defaultText(s)}`,
    ...(meaning(s) === '' ? [] : [`      ${meaning(s)}`]),
  ]);
  const flags = report.flags.map(
    (f) => `  --${f.name} <${f.value}>  the option ${f.option}: ${f.description}`,
  );
  return [
    `Usage: ohs report ${report.name} [options]`,
    '',
    `${report.title}: ${report.description}`,
    '',
    `Options of ${report.name}: --option NAME=VALUE (repeatable), or config reports.options for every run`,
    '',
    ...rows,
    ...(flags.length > 0 ? ['', 'Flags for these options:', ...flags] : []),
    '',
    `The options every report takes (ohs report --help):`,
    '',
    common.slice(common.indexOf('Options:')),
  ].join('\n');
}
