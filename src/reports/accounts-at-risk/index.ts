import { formatInstant } from '../../dates.js';
import { reportStem } from '../../render/index.js';
import type { Row } from '../../render/types.js';
import type { ReportBody, ReportDeclaration, ReportInput } from '../core/types.js';
import { compareOrgs } from '../core/values.js';
import { accountsColumns, joinedColumns, kindCountColumns } from './columns.js';
import { accountsAtRiskHtml } from './html.js';
import { joinReports, type OrgFacts } from './join.js';
import { KINDS, kindRules, kindsOf } from './kinds.js';
import { type AccountsAtRiskOptions, accountsAtRiskOptions } from './options.js';
import { type AtRiskProduct, atRiskProduct } from './product.js';
import { accountsAtRiskWords } from './words.js';

/**
 * Accounts at risk (docs/reports.md): one row per employer joining the compliance, unpaid
 * invoices and order ageing reports' own figures (each run by its own build with the same
 * parameters), with the kinds of risk their combination shows and the keys of the evidence rows
 * in the three reports of the same as-of.
 */
export const accountsAtRiskReport: ReportDeclaration<
  typeof accountsAtRiskOptions,
  'accounts-at-risk',
  AtRiskProduct
> = {
  name: 'accounts-at-risk',
  title: 'Accounts at risk',
  description:
    'One row per employer joining compliance, A/R and orders: stopped testing (behind, no recent drug or alcohol order), testing unpaid (91+ past due while orders keep coming), on hold and behind; each row keyed and linked to its evidence rows in the three reports.',
  options: accountsAtRiskOptions,
  streams: ['orgmonth', 'orderitem', 'invoice'],
  build,
  html: accountsAtRiskHtml,
  words: accountsAtRiskWords,
};

async function build(input: ReportInput<AccountsAtRiskOptions>): Promise<ReportBody<AtRiskProduct>> {
  const { params, opts, names } = input;
  const joined = await joinReports(input);
  const { time } = params;
  const instant = { ms: time.at, note: time.note };
  // The evidence files of the same run: named as writeReports names them.
  const fileInstant = time.asOf.source === 'instant' ? time.asOf.iso : undefined;
  const stem = (report: string) => reportStem(report, time.asOf.dateText, fileInstant);
  const rows: Row[] = [];
  const employers: { f: OrgFacts; kinds: readonly string[] }[] = [];
  for (const f of joined.orgs.values()) {
    const k = kindsOf(f, opts, instant.ms);
    rows.push(rowOf(f, k, names, stem));
    employers.push({ f, kinds: k.kinds });
  }
  const joinedWarnings = [...joined.warningCounts.values()].reduce((a, n) => a + n, 0);
  rows.sort(
    (a, b) =>
      (b.kindCount as number) - (a.kindCount as number) ||
      (b.balance91Plus as number) - (a.balance91Plus as number) ||
      compareOrgs(
        { org: (a.org as string | null) ?? null, orgId: a.orgId as number },
        { org: (b.org as string | null) ?? null, orgId: b.orgId as number },
      ),
  );
  const rules = kindRules(opts, joined.oldLabel);
  const kindRows: Row[] = rules.map(([kind, rule]) => {
    const having = rows.filter((r) =>
      String(r.kinds ?? '')
        .split(';')
        .includes(kind),
    );
    return {
      kind,
      rule,
      employers: having.length,
      onAssumedRates:
        kind === KINDS.TESTING_UNPAID ? 0 : having.filter((r) => r.complianceBasis === 'assumed').length,
    };
  });
  return {
    detail: {
      name: 'Accounts at risk',
      columns: accountsColumns(joined.oldLabel),
      rows,
      totals: 'none' as const,
    },
    summaries: () => [
      { name: 'Kinds', columns: kindCountColumns, rows: kindRows, totals: 'none' as const, wrap: true },
      {
        name: 'Joined reports',
        columns: joinedColumns,
        rows: [...joined.warningCounts].map(([report, warnings]) => ({
          report,
          file: stem(report),
          warnings,
        })),
        totals: 'none' as const,
      },
    ],
    facts: () => atRiskProduct(employers, joinedWarnings),
    warnings: () => joined.warnings,
    about: () => ({
      method: [
        ...rules.map(([kind, rule]): [string, string] => [`Kind ${kind}`, rule]),
        [
          'Joined reports',
          'compliance (sheet YTD by org: drug and alcohol status through its month, rate source), unpaid-invoices (sheet By org: net total, oldest bucket, oldest days past due), order-ageing (its items per org: open, on hold and stuck as its By org sheet counts them; terminal items included for the last drug or alcohol order: products of its drug and alcohol families), each figured by its own code with the same as-of and options, once per run',
        ] as [string, string],
        [
          'Compliance',
          'the worse of the drug and alcohol statuses (N/A counts only when both are); "assumed" when a status rests on an assumed rate (no policy: import policies with ohs policy import), "none" when the employer has no OrgMonth row',
        ] as [string, string],
        ['As-of instant', `${formatInstant(instant.ms)}: ${instant.note}`] as [string, string],
        [
          'Evidence',
          'each row names the rows that back it in the three reports of the same as-of (file and keys: orgId, and year and month for compliance); on the HTML page each links to that org\u2019s row on the other page (#org-ID)',
        ] as [string, string],
        [
          'Deciding order',
          'on STOPPED_TESTING and TESTING_UNPAID rows, the last drug or alcohol order (order item id, product, created) that decides them: it may be completed or cancelled, so it is named here rather than in the open items of the order ageing; blank on a STOPPED_TESTING row when the employer has no drug or alcohol order at all',
        ] as [string, string],
        [
          'Sort',
          'by the number of kinds, then the oldest bucket\u2019s balance, descending; then org name',
        ] as [string, string],
      ],
      results: [
        ['Employers', String(rows.length)],
        ['At risk (one kind or more)', String(rows.filter((r) => (r.kindCount as number) > 0).length)],
      ],
    }),
  };
}

function rowOf(
  f: OrgFacts,
  k: ReturnType<typeof kindsOf>,
  names: Map<number, string>,
  stem: (report: string) => string,
): Row {
  const c = f.compliance;
  const inv = f.invoices;
  const anchor = `#org-${f.orgId}`;
  // The last drug or alcohol order decides the two kinds that read orders: cited on their rows.
  const decided = k.kinds.includes(KINDS.STOPPED_TESTING) || k.kinds.includes(KINDS.TESTING_UNPAID);
  const deciding = decided ? f.orders.lastOrder : null;
  return {
    orgId: f.orgId,
    org: names.get(f.orgId) ?? f.org,
    kinds: k.kinds.length === 0 ? null : k.kinds.join(';'),
    kindCount: k.kinds.length,
    complianceStatus: c?.status ?? null,
    complianceBasis: c === null ? 'none' : c.assumed ? 'assumed' : 'measured',
    drugStatus: c?.drugStatus ?? null,
    alcoholStatus: c?.alcoholStatus ?? null,
    openBalance: inv?.open ?? 0,
    balance91Plus: inv?.oldBucket ?? 0,
    oldestDaysPastDue: inv?.oldestDays ?? null,
    openOrders: f.orders.open,
    onHold: f.orders.onHold,
    stuck: f.orders.stuck,
    lastDrugAlcoholOrder: f.orders.lastDrugAlcohol,
    daysSinceLastOrder: k.daysSinceOrder,
    complianceEvidence:
      c === null ? null : `${stem('compliance')}.csv: orgId=${f.orgId}, year=${c.year}, month=${c.month}`,
    invoiceEvidence:
      inv === null ? null : `${stem('unpaid-invoices')}.csv: orgId=${f.orgId} (${inv.count} open)`,
    orderEvidence:
      f.orders.open === 0 ? null : `${stem('order-ageing')}.csv: orgId=${f.orgId} (${f.orders.open} open)`,
    // Links of the page only (no column): the org's row on the other pages of the same as-of.
    complianceHref: c === null ? null : `${stem('compliance')}.html${anchor}`,
    invoiceHref: inv === null ? null : `${stem('unpaid-invoices')}.html${anchor}`,
    orderHref: f.orders.open === 0 ? null : `${stem('order-ageing')}.html${anchor}`,
    decidingOrderId: deciding?.id ?? null,
    decidingOrderProduct: deciding?.product ?? null,
    decidingOrderCreated: deciding === null ? null : f.orders.lastDrugAlcohol,
  };
}

export { accountsAtRiskOptions };
