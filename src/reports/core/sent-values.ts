import { type RawBuilder, sql } from 'kysely';

/**
 * What a record sent for a number column the mirror holds as null. SQLite keeps whatever a
 * record sent in any column, so a balance of "lots" reads back as "lots"; PostgreSQL cannot put
 * it in a numeric column and stores null there, the record's `raw` keeping "lots" (see
 * src/mirror/postgres/values.ts). A report that lists unreadable values (never dropping them
 * silently) selects `rawWhereNull(columns)` beside the columns and passes each row through
 * `withSentValues`, so it sees what the record sent on either engine. `raw` is read only for the
 * rows where one of the columns is null.
 */
export function rawWhereNull(columns: readonly string[]): RawBuilder<string | null> {
  const anyNull = sql.join(
    columns.map((c) => sql`${sql.ref(c)} IS NULL`),
    sql` OR `,
  );
  return sql<string | null>`CASE WHEN ${anyNull} THEN ${sql.ref('raw')} END`;
}

/** Fills each null column of `row` with the record's own value from `sent` (its raw, or null). */
export function withSentValues<R extends Record<string, unknown>>(
  row: R,
  sent: string | null,
  columns: readonly (keyof R & string)[],
): R {
  if (sent === null) return row;
  const record = JSON.parse(sent) as Record<string, unknown>;
  const out: Record<string, unknown> = { ...row };
  for (const c of columns) {
    if (out[c] === null && record[c] !== undefined && record[c] !== null) out[c] = record[c];
  }
  return out as R;
}
