import { esc } from '../../render/html/escape.js';
import type { Row } from '../../render/types.js';
import { NOT_GIVEN } from './facts.js';

/** What the cover page of an audit packet summarises (index.ts). */
export interface CoverFacts {
  orgId: number;
  year: number;
  instant: string;
  /** How the mirror was read, in words. */
  read: string;
  detail: Row[];
  ytd: Row | undefined;
  plan: Row[];
  /** One per test type (facts.ts verdictRows). */
  verdicts: Row[];
  policies: Row[];
  runs: Row[];
  warnings: number;
  files: readonly [string, string][];
}

const cell = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'number' ? fmt(v) : esc(v));
/** An instant as the CSV files write it: ISO 8601 UTC to the second. */
const second = (v: unknown) => {
  const ms = Date.parse(String(v));
  return Number.isFinite(ms) ? `${new Date(ms).toISOString().slice(0, 19)}Z` : esc(v);
};
const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2));

function table(head: string[], rows: unknown[][]): string {
  return `<table><thead><tr>${head.map((h) => `<th scope="col">${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((v) => `<td>${cell(v)}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

/**
 * The packet's cover page: one self-contained HTML file (no script, nothing fetched), holding no
 * time of its making, so the same packet has the same bytes.
 */
export function coverPage(f: CoverFacts): string {
  const org = f.ytd?.org ?? f.detail[0]?.org ?? null;
  const inForce = f.policies.find((p) => p.inForce === true);
  const months = f.detail.length;
  const flagged = (flag: string) =>
    f.detail
      .filter((r) =>
        String(r.flags ?? '')
          .split(';')
          .includes(flag),
      )
      .map((r) => r.month);
  const dataCheck = flagged('DATA_CHECK');
  const gaps = flagged('DATA_GAP');
  const noPick = f.detail.filter((r) => r.randomPickDocument == null).map((r) => r.month);
  const lastOk = [...f.runs].reverse().find((r) => r.outcome === 'ok');
  const ytd = f.ytd;
  const kinds = ['drug', 'alcohol'] as const;
  const pct = (v: unknown) => (typeof v === 'number' ? `${(v * 100).toFixed(1)}%` : 'n/a (no pool)');
  const quarters = f.verdicts[0]?.quartersWithoutSelection;
  const sections = [
    `<h1>Audit packet: ${esc(org ?? 'org')} (${f.orgId}), ${f.year}</h1>`,
    `<p>As of ${second(f.instant)}: ${esc(f.read)}. Through month ${cell(ytd?.throughMonth ?? months)}. Every figure here is in the CSV files beside this page; MANIFEST.sha256 holds their checksums.</p>`,
    '<h2>Verdict</h2>',
    `<ul>${f.verdicts
      .map(
        (v) =>
          `<li><strong>${esc(v.testType === 'drug' ? 'Drug' : 'Alcohol')}: ${esc(v.verdict)}</strong>, ${esc(v.basis)}. Rate ${cell(v.rate ?? 'none')}%: ${esc(v.rateBasis)}. Rate achieved to date ${pct(v.rateAchievedToDate)} (${cell(v.completedYtd)} completed ÷ average pool ${cell(v.averagePool)} of the months passed; target ${cell(v.annualTarget ?? 'none')}).</li>`,
      )
      .join('')}</ul>`,
    `<p>Quarters without a selection: ${quarters == null ? 'none' : esc(String(quarters).replaceAll(';', ', '))}. Problems named: ${esc(f.verdicts[0]?.problems ?? 'none')}. (verdicts.csv)</p>`,
    '<h2>Compliance, year to date</h2>',
    ytd === undefined
      ? '<p>No compliance row for this employer (not in the program filter).</p>'
      : table(
          [
            'Test type',
            'Rate %',
            'Annual target',
            'Completed YTD',
            'Picked YTD',
            'Expected to date',
            'Status',
          ],
          kinds.map((k) => [
            k,
            ytd[`${k}Rate`],
            ytd[`${k}AnnualTarget`],
            ytd[`${k}CompletedYtd`],
            ytd[`${k}PickedYtd`],
            ytd[`${k}ExpectedToDate`],
            ytd[`${k}Status`],
          ]),
        ),
    `<p>Rate source: ${cell(ytd?.rateSource)}. Program: ${cell(ytd?.program)}.</p>`,
    '<h2>Catch-up plan</h2>',
    table(
      ['Test type', 'Verdict', 'Per period left', 'Still needed', 'Periods left', 'Why'],
      f.plan.map((r) => [r.testType, r.verdict, r.perPeriod, r.needed, r.periodsLeft, r.reason]),
    ),
    '<h2>Policy</h2>',
    inForce === undefined
      ? '<p>No policy in force at the instant: the employer is scored on the default rates (an assumed rate).</p>'
      : `<p>In force since ${second(inForce.validFrom)}${inForce.effectiveFrom == null ? ', for every month' : `, scoring the months from ${esc(inForce.effectiveFrom)}`}: ${esc(inForce.program)}${inForce.agency == null ? '' : ` ${esc(inForce.agency)}`}, drug ${cell(inForce.rpMinDrug ?? 'agency rate')}, alcohol ${cell(inForce.rpMinAlc ?? 'agency rate')} (source ${esc(inForce.source)}).</p>`,
    `<p>${f.policies.length} version${f.policies.length === 1 ? '' : 's'} of the policy (policy.csv).</p>`,
    '<h2>Evidence, month by month</h2>',
    `<p>${months} month${months === 1 ? '' : 's'} (evidence.csv). DATA_CHECK: ${dataCheck.length === 0 ? 'none' : `months ${dataCheck.join(', ')}`}. Months with no OrgMonth row (pool carried forward, DATA_GAP): ${gaps.length === 0 ? 'none' : gaps.join(', ')}. Months with no random pick document: ${noPick.length === 0 ? 'none' : noPick.join(', ')}. Warnings: ${f.warnings} (warnings.csv).</p>`,
    table(
      ['Month', 'OrgMonth id', 'First observed by the mirror', 'These figures observed since'],
      f.detail.map((r) => [
        r.month,
        r.orgMonthId,
        r.firstObservedAt == null ? 'not in the history' : second(r.firstObservedAt),
        r.figuresSince == null ? '' : second(r.figuresSince),
      ]),
    ),
    '<h2>Provenance</h2>',
    `<p>${f.runs.length} sync run${f.runs.length === 1 ? '' : 's'} ended from ${f.year}-01-01 to the instant (sync-runs.csv)${lastOk === undefined ? '' : `; the last successful one: run ${cell(lastOk.runId)}, ended ${second(lastOk.endedAt)}`}.</p>`,
    '<h2>What the service does not give</h2>',
    `<p>${esc(NOT_GIVEN)}</p>`,
    '<h2>Files</h2>',
    table(
      ['File', 'What it holds'],
      [
        ...f.files,
        ['MANIFEST.sha256', 'sha256 of every other file (sha256sum -c MANIFEST.sha256)'] as const,
      ].map(([n, what]) => [n, what]),
    ),
  ];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Audit packet: org ${f.orgId}, ${f.year}</title>
<style>body{font-family:system-ui,sans-serif;margin:1.5rem;max-width:60rem}table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #ccc;padding:.2rem .5rem;text-align:left}</style>
</head>
<body>
${sections.join('\n')}
</body>
</html>
`;
}
