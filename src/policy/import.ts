import type { Kysely } from 'kysely';
import { z } from 'zod';
import { formatDate, localDateOf, parseIsoDate } from '../dates.js';
import { InputError } from '../errors.js';
import { type CellValue, type InputLimits, type InputTable, readTable } from '../input/read-table.js';
import { type Database, writePolicy } from '../mirror/index.js';

/**
 * `ohs policy import FILE`: org rate policies (the service has no Org read, so rates
 * come from write-back and from files). Columns, by the interface's names or camelCase ones:
 * orgId (OrgId), program (DOT | NON_DOT; default DOT when a DOT registration number is given),
 * agency (FMCSA, FTA, FAA, FRA, PHMSA, USCG), rpMinDrug, rpMinAlc (percent, 0 to 100; `50%` too),
 * dotRegistrationNumber (rpDotRegistrationNumber), parentOrgId (Parent~OrgId), effectiveFrom (a date
 * YYYY-MM-DD, or a spreadsheet date: the first day of the months the policy scores; empty: the
 * first day of the compliance year it is imported in). Every row is checked first; one bad row
 * and nothing is written.
 */
export const agencies = ['FMCSA', 'FTA', 'FAA', 'FRA', 'PHMSA', 'USCG'] as const;

const aliases: Record<string, string> = {
  orgid: 'orgId',
  program: 'program',
  agency: 'agency',
  rpmindrug: 'rpMinDrug',
  rpminalc: 'rpMinAlc',
  dotregistrationnumber: 'dotRegistrationNumber',
  rpdotregistrationnumber: 'dotRegistrationNumber',
  parentorgid: 'parentOrgId',
  'parent~orgid': 'parentOrgId',
  effectivefrom: 'effectiveFrom',
  effective_from: 'effectiveFrom',
};

const num = (v: CellValue) =>
  typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v;

/** A percent as a number: `50`, `12.5`, and the spreadsheet habit `50%` or `50 %`. */
const percentNum = (v: CellValue) => num(typeof v === 'string' ? v.trim().replace(/\s*%$/, '') : v);

const percent = z
  .number({ error: 'expected a percent from 0 to 100' })
  .min(0, 'expected a percent from 0 to 100')
  .max(100, 'expected a percent from 0 to 100')
  .nullable();

const rowSchema = z
  .object({
    orgId: z.preprocess(
      num,
      z.number({ error: 'required, a whole number' }).int('expected a whole number').positive(),
    ),
    program: z.preprocess(
      (v) => (typeof v === 'string' ? v.toUpperCase().replace(/[- ]/g, '_') : v),
      z.enum(['DOT', 'NON_DOT'], { error: 'expected DOT or NON_DOT' }).nullable(),
    ),
    agency: z.preprocess(
      (v) => (typeof v === 'string' ? v.toUpperCase() : v),
      z.enum(agencies, { error: `expected one of ${agencies.join(', ')}` }).nullable(),
    ),
    rpMinDrug: z.preprocess(percentNum, percent),
    rpMinAlc: z.preprocess(percentNum, percent),
    dotRegistrationNumber: z.preprocess((v) => (v === null ? null : String(v)), z.string().nullable()),
    parentOrgId: z.preprocess(
      num,
      z.number({ error: 'expected a whole number' }).int().positive().nullable(),
    ),
    effectiveFrom: z.preprocess(
      (v) => (typeof v === 'string' ? (v.trim() === '' ? null : v.trim()) : v),
      z
        .string({ error: 'expected a date YYYY-MM-DD' })
        .refine((v) => parseIsoDate(v) !== null, 'expected a date YYYY-MM-DD')
        .nullable(),
    ),
  })
  .strict();

export type PolicyRow = z.output<typeof rowSchema>;

export function validatePolicies(table: InputTable): PolicyRow[] {
  const problems: string[] = [];
  const unknown = table.columns.filter((c) => aliases[c.toLowerCase()] === undefined);
  if (unknown.length > 0) {
    problems.push(
      `${table.file}:1: unknown column(s) ${unknown.join(', ')} (expected ${Object.values(aliases)
        .filter((v, i, a) => a.indexOf(v) === i)
        .join(', ')})`,
    );
  }
  if (!table.columns.some((c) => aliases[c.toLowerCase()] === 'orgId'))
    problems.push(`${table.file}:1: orgId: the column is missing`);
  const rows: PolicyRow[] = [];
  const seen = new Map<number, number>();
  for (const r of table.rows) {
    const input: Record<string, CellValue> = {
      program: null,
      agency: null,
      rpMinDrug: null,
      rpMinAlc: null,
      dotRegistrationNumber: null,
      parentOrgId: null,
      effectiveFrom: null,
    };
    for (const [k, v] of Object.entries(r.values)) {
      const key = aliases[k.toLowerCase()];
      if (key !== undefined) input[key] = v;
    }
    const parsed = rowSchema.safeParse(input);
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        problems.push(`${table.file}:${r.row}: ${issue.path.join('.') || 'row'}: ${issue.message}`);
      continue;
    }
    const p = parsed.data;
    const dup = seen.get(p.orgId);
    if (dup !== undefined)
      problems.push(`${table.file}:${r.row}: orgId: ${p.orgId} is already on row ${dup}`);
    seen.set(p.orgId, r.row);
    if (p.program === null) p.program = p.dotRegistrationNumber ? 'DOT' : 'NON_DOT';
    rows.push(p);
  }
  if (problems.length > 0) {
    throw new InputError(`${table.file}: ${problems.length} problem(s), nothing imported`, {
      detail: problems,
    });
  }
  return rows;
}

/**
 * Imports a policy file into org_policy (replacing the imported policy of each org given), each
 * change a new version known from now (the versions before it are kept), scoring the months from
 * its effective date: given, or the first day of the year it is imported in (in the reporting
 * time zone), so a policy imported in November scores the whole year, not November on.
 */
export async function importPolicies(
  db: Kysely<Database>,
  file: string,
  limits: InputLimits,
  timezone = 'UTC',
  sheet?: string,
): Promise<number> {
  const rows = validatePolicies(
    await readTable(file, limits, sheet === undefined ? { dates: true } : { dates: true, sheet }),
  );
  const ms = Date.now();
  const now = new Date(ms).toISOString();
  const yearStart = formatDate({ year: localDateOf(ms, timezone).year, month: 1, day: 1 });
  await db.transaction().execute(async (trx) => {
    for (const p of rows) {
      const values = {
        org_id: p.orgId,
        program: p.program ?? 'NON_DOT',
        agency: p.agency,
        rp_min_drug: p.rpMinDrug,
        rp_min_alc: p.rpMinAlc,
        dot_registration_number: p.dotRegistrationNumber,
        parent_org_id: p.parentOrgId,
        source: 'import',
        updated_at: now,
        effective_from: p.effectiveFrom ?? yearStart,
      };
      await writePolicy(trx, values);
    }
  });
  return rows.length;
}
