import { execFileSync } from 'node:child_process';
import { expect, test } from 'vitest';
import { startPgServer } from './helpers/pg-server.js';

test('a real PostgreSQL server starts, serves and stops', async () => {
  const s = await startPgServer();
  try {
    const u = s.createDatabase('t1');
    expect(execFileSync('psql', [u, '-Atc', 'select 1+1'], { encoding: 'utf8' }).trim()).toBe('2');
  } finally {
    s.stop();
  }
});
