import { InvalidArgumentError, Option } from 'commander';
import type { z } from 'zod';
import { intArg, listArg, numberArg } from './parse.js';

/**
 * Command-line flags generated from a zod object schema, so that a setting is written once (its
 * type, bounds, default and description in the schema) and its flag follows: `--kebab-case` of
 * the key (or the schema's `meta({ flag })`), the description as help, the default shown, enums
 * as choices, arrays as comma-separated lists, numbers checked by the key's own schema; a boolean
 * defaulting to true becomes `--no-...`.
 */
export function schemaFlags(schema: z.ZodObject): Option[] {
  return Object.entries(schema.shape).map(([key, field]) => flagOf(key, field as z.ZodType));
}

/** The flag's name (without dashes) of a schema key. */
export function flagName(key: string, field: z.ZodType): string {
  const named = field.meta()?.flag;
  return typeof named === 'string' ? named : key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/**
 * The settings a command line gave, by schema key, from commander's options (named after the
 * flags: `faults` for a key whose flag is `--faults`). Keys absent from the command line are
 * absent here.
 */
export function schemaValues(schema: z.ZodObject, opts: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(schema.shape)) {
    const attribute = flagName(key, field as z.ZodType).replace(/-([a-z])/g, (_, c: string) =>
      c.toUpperCase(),
    );
    if (opts[attribute] !== undefined) out[key] = opts[attribute];
  }
  return out;
}

/** The type under `.default()` / `.optional()` wrappers. */
function inner(field: z.ZodType): z.ZodType {
  let t = field;
  while (t.def.type === 'default' || t.def.type === 'optional')
    t = (t.def as unknown as { innerType: z.ZodType }).innerType;
  return t;
}

/** A value given on the command line, read as `field` reads it: its checks, its message. */
function checkedBy(field: z.ZodType, read: (raw: string) => unknown) {
  return (raw: string): unknown => {
    const parsed = field.safeParse(read(raw));
    if (!parsed.success) throw new InvalidArgumentError(`${parsed.error.issues[0]?.message ?? 'invalid'}.`);
    return parsed.data;
  };
}

function numberReader(t: z.ZodNumber): (raw: string) => number {
  const min = t.minValue ?? Number.NEGATIVE_INFINITY;
  const max = t.maxValue ?? Number.POSITIVE_INFINITY;
  if (!t.isInt) return numberArg(min, max);
  return intArg(Math.max(min, Number.MIN_SAFE_INTEGER), Math.min(max, Number.MAX_SAFE_INTEGER));
}

function flagOf(key: string, field: z.ZodType): Option {
  const name = flagName(key, field);
  const description = field.description ?? '';
  const t = inner(field);
  const fallback = field.safeParse(undefined);
  const value = fallback.success ? fallback.data : undefined;
  let option: Option;
  switch (t.def.type) {
    case 'boolean':
      return value === true
        ? // The description says what the setting does when on; the flag switches it off.
          new Option(`--no-${name}`, `Switch off (on by default): ${description}`)
        : new Option(`--${name}`, description).default(false);
    case 'number':
      option = new Option(`--${name} <${(t as z.ZodNumber).isInt ? 'n' : 'x'}>`, description).argParser(
        checkedBy(t, numberReader(t as z.ZodNumber)),
      );
      break;
    case 'enum':
      option = new Option(`--${name} <value>`, description).choices((t as z.ZodEnum).options.map(String));
      break;
    case 'array': {
      const element = (t as z.ZodArray<z.ZodType>).element;
      const items = (raw: string) => raw.split(',').map((s) => s.trim());
      const split =
        element.def.type === 'enum'
          ? listArg((element as z.ZodEnum).options.map(String))
          : element.def.type === 'number'
            ? (raw: string) => items(raw).map(Number)
            : items;
      option = new Option(`--${name} <list>`, description).argParser(checkedBy(t, split));
      break;
    }
    default:
      // Text is checked where the settings are parsed whole (the message names the setting).
      option = new Option(`--${name} <text>`, description);
  }
  return value === undefined ? option : option.default(value);
}
