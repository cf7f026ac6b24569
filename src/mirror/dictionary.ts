import type { DataDictionaryTable } from './db-types.js';
import type { EngineDdl } from './ddl.js';
import { historyTableOf, historyViewOf } from './history.js';
import { sqliteDdl } from './sqlite/ddl.js';
import { bookkeepingColumns, type ChildTableDef, type ColumnDef, columnKind, tableDefs } from './tables.js';

const tableDocs: Record<string, string> = {
  sync_run: 'One row per sync or job run: when, mode, outcome, requests, retries, error.',
  sync_stream_run: 'One row per stream of a run: pages, rows inserted / updated / unchanged / deleted.',
  sync_checkpoint: 'Where each stream (and partition) stopped, so a killed sync resumes there.',
  sync_stream_state: 'Per stream: last successful sync, last full pass, the full pass under way.',
  sync_deletion:
    'Audit of every soft deletion: run, stream, table, row id, when; restored_at / restored_run_id when the row was seen again and restored.',
  sync_lock: 'The lock that keeps one sync at a time on this file.',
  orderitem_status_history: 'One row per status seen per order item: first and last time seen.',
  data_dictionary: 'This table: every column of the mirror, described.',
  job_run:
    'One row per job run (nightly, sync, reports): trigger, start, end, outcome, error, files written.',
  outbox:
    'Write-back: one row per planned change (ohs plan), its state (queued, sending, applied, conflict, failed, unknown, held, abandoned), request, response, re-read check, what the plan checked it against, why it was held and who released it; see ohs outbox.',
  outbox_event:
    "Write-back: one row each time an outbox item entered a state (the item's id, the state, the instant): what a report of a period reads an item's state at the period's end from.",
  org_policy:
    'Random-testing rate policy per org (program, agency, rpMinDrug, rpMinAlc, parent, effective_from: the first day of the months it scores, null for every month), from write-back and ohs policy import.',
  h_org_policy:
    'Every version of org_policy: the policy of an org and the interval the mirror held it (valid_from, valid_to; null: held now) with the months it scores from (effective_from). A report as of an instant scores each month by the latest version known then that is effective for that month.',
  org_policy_history:
    'View of h_org_policy for BI users: each policy version with valid_from, valid_to and is_current (1 for the version in force now).',
};

/** The history of a resource table (history.ts): its view for BI users and the table behind it. */
function historyRows(table: string, resource: string, ddl: EngineDdl): DataDictionaryTable[] {
  const row = (t: string, column: string, kind: 'text' | 'int' | null, description: string) => ({
    table_name: t,
    column_name: column,
    sql_type: kind === null ? '' : ddl.typeName(kind),
    field: null,
    description,
  });
  const view = historyViewOf(table);
  return [
    row(
      view,
      '(table)',
      null,
      `Every version of each ${resource} record as the mirror observed it (view): the typed columns of ${table}, masked as there, with the interval each version held. The mirror as it stood at instant T: valid_from <= T and (valid_to is null or valid_to > T).`,
    ),
    row(view, 'valid_from', 'text', 'The sync instant that wrote this version (ISO 8601 UTC).'),
    row(
      view,
      'valid_to',
      'text',
      'The sync instant that replaced this version or found the record gone (ISO 8601 UTC); null while it is current.',
    ),
    row(view, 'is_current', 'int', '1 for the version the mirror holds now, else 0.'),
    row(
      historyTableOf(table),
      '(table)',
      null,
      `The versions behind ${view}, with raw; pruned after mirror.historyDays (never the current one).`,
    ),
  ];
}

/**
 * Rows of the data_dictionary table: every column of every table, from the schema module, with
 * its type as the engine names it.
 */
export function dictionaryRows(ddl: EngineDdl = sqliteDdl): DataDictionaryTable[] {
  const rows: DataDictionaryTable[] = [];
  const colRow = (table: string, c: ColumnDef, owner: string): DataDictionaryTable => ({
    table_name: table,
    column_name: c.name,
    sql_type: ddl.typeName(columnKind(c)),
    field: c.field,
    description: `${owner}.${c.field} (${c.fieldType}${c.sensitive ? ', sensitive: masked whatever its JSON type unless mirror.storeSensitive' : ''}): ${c.doc ?? 'as named in the interface; meaning not stated'}.`,
  });
  const child = (c: ChildTableDef, owner: string) => {
    rows.push({
      table_name: c.table,
      column_name: '(table)',
      sql_type: '',
      field: null,
      description: `Items of ${owner}.${c.arrayField}[], one row each; replaced whole when the parent changes.`,
    });
    for (const col of c.columns) rows.push(colRow(c.table, col, `${owner}.${c.arrayField}[]`));
    for (const g of c.children) child(g, `${owner}.${c.arrayField}[]`);
  };
  for (const def of tableDefs) {
    rows.push({
      table_name: def.table,
      column_name: '(table)',
      sql_type: '',
      field: null,
      description: `${def.resource} records mirrored from the service, one row per id; soft-deleted rows keep their data.`,
    });
    for (const c of def.columns) rows.push(colRow(def.table, c, def.resource));
    for (const b of bookkeepingColumns) {
      rows.push({
        table_name: def.table,
        column_name: b.name,
        sql_type: ddl.typeName(b.kind),
        field: null,
        description: b.doc,
      });
    }
    for (const c of def.children) child(c, def.resource);
    rows.push(...historyRows(def.table, def.resource, ddl));
  }
  for (const [table, description] of Object.entries(tableDocs)) {
    rows.push({ table_name: table, column_name: '(table)', sql_type: '', field: null, description });
  }
  return rows;
}
