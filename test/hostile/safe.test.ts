import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ERROR_CHARS } from '../../src/errors.js';
import { hostileOrgNames, hugeErrorMessage } from '../../src/sim/hostile.js';
import { runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import { type Hostile, startHostile } from '../helpers/hostile-server.js';
import { cliConfig, cliEnv, rows, withMirror, withTmpDir } from '../helpers/mirror.js';
import { reportCli } from '../helpers/report-cli.js';
import { foundIn, mirrorBytes, personalData } from '../helpers/secrets.js';
import { withSim } from '../helpers/sim.js';

/**
 * The sandbox's hostile mode (src/sim/hostile.ts) through the real CLI on both engines.
 * SSNs, birth dates and licence numbers sent as numbers, objects and arrays, and unnamed fields
 * named like personal data, never reach the mirror's bytes in clear: a record read by id with a
 * field of another type than declared is refused whole, and fields it does not declare are
 * neither asked nor kept.
 */
describe('ohs sync from a hostile service', () => {
  const sim = withSim({ scale: 0.02, hostile: true });
  const tmp = withTmpDir('ohs-safe-');

  let hostile: Hostile;
  beforeAll(async () => {
    hostile = await startHostile(sim().url);
  });
  afterAll(async () => {
    await hostile?.close();
  });

  describe.each(engines)('%s', (engine) => {
    const target = withTargets(engine);

    let db = '';
    it('personal data of another JSON type than declared is refused with its record (the stream incomplete), never stored or printed; the rest is masked', async () => {
      db = await target();
      const config = cliConfig(dirname(tmp()));
      const applicants = sim().truth().Applicant;
      const kinds = new Set(applicants.map((a) => (Array.isArray(a.ssn) ? 'array' : typeof a.ssn)));
      expect([...kinds].sort()).toEqual(['array', 'number', 'object', 'string']);
      const secrets = personalData(applicants);
      expect(secrets.length).toBeGreaterThan(3 * applicants.length);

      const r = await runOhs(['sync', '--db', db, '--config', config, '--log-level', 'debug'], {
        env: cliEnv(sim()),
        timeoutMs: 120_000,
      });
      expect(r.code, r.stderr.slice(-2000)).toBe(0);
      expect(foundIn(r.stdout + r.stderr, secrets)).toEqual([]);
      // A record read by id must be one of its resource, each field of its declared type: the
      // first applicant with an SSN, birth date or licence number of another type ends probing.
      expect(r.stdout).toMatch(
        /applicant incomplete: ids above \d+ not asked: the service answered id \d+ wrongly \(a record whose (ssn|id_birthdate|id_licenseNumber) is not of its declared type \(string\): no Applicant record, not stored\)/,
      );

      const bytes = mirrorBytes(db);
      expect(foundIn(bytes, secrets)).toEqual([]);

      const stored = await withMirror(db, (m) =>
        rows<{ id: number; ssn: string | null; id_birthdate: string | null; raw: string }>(
          m,
          sql`SELECT id, ssn, id_birthdate, raw FROM applicant ORDER BY id`,
        ),
      );
      // Only the ones in flight with the first refusal, and each of them all strings, masked.
      expect(stored.length).toBeLessThan(applicants.length);
      const plain = new Set(applicants.filter((a) => typeof a.ssn === 'string').map((a) => Number(a.id)));
      for (const row of stored) {
        expect(plain.has(Number(row.id))).toBe(true);
        expect(row.ssn).toMatch(/^\*\*\*\d{4}$/);
        expect(row.id_birthdate).toMatch(/^(\d{4}-\*\*-\*\*|\*\*\*\*)$/);
        // Fields the Applicant does not declare are neither asked nor kept.
        const raw = JSON.parse(String(row.raw)) as Record<string, unknown>;
        expect(raw).not.toHaveProperty('socialSecurityNumber');
        expect(raw).not.toHaveProperty('extra');
      }
      // The hostile org names arrived as sent (kept as data; neutralised where printed or rendered).
      const names = await withMirror(db, (m) =>
        rows<{ name: string }>(m, sql`SELECT name FROM tenant UNION SELECT c_org AS name FROM orderitem`),
      );
      expect(hostileOrgNames.filter((n) => names.some((r) => r.name === n)).length).toBeGreaterThan(5);
    });

    it('report CSVs in both dialects hold no formula start a spreadsheet could run, however split, and no control character', async () => {
      const dir = dirname(tmp());
      for (const dialect of [[], ['--csv-excel']]) {
        const out = join(dir, `out-${engine}-${dialect.length}`);
        const r = await reportCli(sim(), db, dir, out, 'all', ['--format', 'csv', ...dialect]);
        expect(r.code, r.stderr.slice(-2000)).toBe(0);
        const text = readdirSync(out)
          .map((f) => readFileSync(join(out, f), 'utf8'))
          .join('\n');
        // The hostile names are there, made inert: Acme Freight\n'=40+2.
        expect(text).toContain("Acme Freight\n'=40+2");
        // Every way a reader could cut the file into cells: at either separator, a tab, a line break.
        const cells = text.split(/[,;\t\r\n]/).map((c) => c.replace(/^"+/, ''));
        const live = cells.filter((c) => /^[=+\-@]/.test(c) && !/^-\d+(\.\d+)?"*$/.test(c));
        expect(live).toEqual([]);
        // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
        expect(text).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/);
      }
    });

    it('HTML reports and their charts (SVG <desc>, aria-label) hold no control or bidirectional character', async () => {
      const dir = dirname(tmp());
      const out = join(dir, `html-${engine}`);
      const r = await reportCli(sim(), db, dir, out, 'all', ['--format', 'html']);
      expect(r.code, r.stderr.slice(-2000)).toBe(0);
      const pages = readdirSync(out).filter((f) => f.endsWith('.html'));
      expect(pages.length).toBeGreaterThan(2);
      const text = pages.map((f) => readFileSync(join(out, f), 'utf8')).join('\n');
      expect(text).toContain('<desc');
      // The hostile names are there, their invisible characters gone: "RightLeft Isolate Ltd".
      expect(text).toContain('RightLeft Isolate Ltd');
      expect(text).not.toMatch(
        // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
        /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/,
      );
    });

    it('a balance of 1e309 (beyond a double) is kept as its text and listed as unreadable by the A/R report', async () => {
      const huge = sim()
        .truth()
        .Invoice.filter((i) => typeof i.balance === 'string' && i.balance.endsWith('1e309'))
        .map((i) => String(i.id));
      expect(huge.length).toBeGreaterThan(0);
      const raws = await withMirror(db, (m) =>
        rows<{ id: string; raw: string }>(
          m,
          sql`SELECT id, raw FROM invoice WHERE id IN (${sql.join(huge)})`,
        ),
      );
      expect(raws.map((r) => (JSON.parse(r.raw) as { balance: unknown }).balance)).toEqual(
        huge.map(() => '1e309'),
      );
      const dir = dirname(tmp());
      const r = await reportCli(sim(), db, dir, join(dir, `ar-${engine}`));
      expect(r.code, r.stderr).toBe(0);
      const warning = r.stderr.split('\n').find((l) => l.includes('with an unreadable balance')) ?? '';
      for (const id of huge) expect(warning).toContain(id);
    });

    it('a 200 KB error message with escape sequences is withheld from the terminal, and stored bounded', async () => {
      const config = cliConfig(dirname(tmp()), { maxRetries: 1 });
      hostile.use((req, res) => {
        if (!req.path.startsWith('/v2/query/core/role')) return false;
        const text = JSON.stringify({ error: { status: 400, code: 'BAD', message: hugeErrorMessage } });
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(text);
        return true;
      });
      try {
        const r = await runOhs(['sync', 'role', '--db', db, '--config', config], {
          env: { ...cliEnv(sim()), OHS_BASE_URL: hostile.url },
          timeoutMs: 120_000,
        });
        expect(r.code).not.toBe(0);
        expect(r.stderr).not.toContain('\u001b');
        // The service's text is withheld (src/util/refusal.ts): its status and code are said, not
        // its words, escaped or not.
        expect(r.stderr).not.toContain('[2J');
        expect(r.stderr).toContain('400');
        expect(r.stderr.length).toBeLessThan(20_000);
        const stored = await withMirror(db, (m) =>
          rows<{ error: string | null }>(
            m,
            sql`SELECT error FROM sync_run WHERE error IS NOT NULL UNION ALL SELECT error FROM sync_stream_run WHERE error IS NOT NULL`,
          ),
        );
        expect(stored.length).toBeGreaterThan(0);
        for (const { error } of stored) {
          expect(String(error).length).toBeLessThanOrEqual(MAX_ERROR_CHARS + 40);
          expect(String(error)).not.toContain('\u001b');
        }
      } finally {
        hostile.use(undefined);
      }
    });
  });
});
