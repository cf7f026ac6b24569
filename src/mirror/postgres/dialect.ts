import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  PostgresDialect,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

/**
 * Kysely's PostgresDialect, with `.stream()` (the order-ageing report streams its rows) through a
 * server-side cursor instead of the pg-cursor package: DECLARE ... WITH HOLD (valid inside and
 * outside a transaction), FETCH a chunk at a time, CLOSE when the stream ends or is left. Memory
 * stays one chunk on this side, whatever the result's size.
 */
export class MirrorPostgresDialect extends PostgresDialect {
  override createDriver(): Driver {
    return new StreamingDriver(super.createDriver());
  }
}

let cursors = 0;

class StreamingConnection implements DatabaseConnection {
  constructor(readonly inner: DatabaseConnection) {}

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    return this.inner.executeQuery<R>(compiledQuery);
  }

  async *streamQuery<R>(
    compiledQuery: CompiledQuery,
    chunkSize = 1000,
  ): AsyncIterableIterator<QueryResult<R>> {
    const name = `ohs_cursor_${process.pid}_${++cursors}`;
    await this.inner.executeQuery(
      CompiledQuery.raw(`DECLARE ${name} NO SCROLL CURSOR WITH HOLD FOR ${compiledQuery.sql}`, [
        ...compiledQuery.parameters,
      ]),
    );
    try {
      for (;;) {
        const r = await this.inner.executeQuery<R>(
          CompiledQuery.raw(`FETCH FORWARD ${Math.max(1, chunkSize)} FROM ${name}`),
        );
        if (r.rows.length === 0) return;
        yield { rows: r.rows };
      }
    } finally {
      await this.inner.executeQuery(CompiledQuery.raw(`CLOSE ${name}`));
    }
  }
}

const unwrap = (c: DatabaseConnection): DatabaseConnection =>
  c instanceof StreamingConnection ? c.inner : c;

class StreamingDriver implements Driver {
  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new StreamingConnection(await this.inner.acquireConnection());
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(unwrap(connection), settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(unwrap(connection));
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(unwrap(connection));
  }

  async savepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await this.inner.savepoint?.(unwrap(connection), name, compile);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await this.inner.rollbackToSavepoint?.(unwrap(connection), name, compile);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await this.inner.releaseSavepoint?.(unwrap(connection), name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(unwrap(connection));
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
