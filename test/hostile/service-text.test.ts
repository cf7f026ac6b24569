import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { writeSnapshot } from '../../src/app/snapshot.js';
import { applyOutbox } from '../../src/writeback/index.js';
import { runOhs } from '../helpers/cli.js';
import { clientFor } from '../helpers/client.js';
import { defaults } from '../helpers/defaults.js';
import { engines, withTargets } from '../helpers/engines.js';
import { mirrorBytes } from '../helpers/secrets.js';
import { WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { syncStreams, withMirror, workdir, writeCsv } from '../helpers/writeback.js';

const env = { OHS_TOKEN: WRITE_TOKEN };
const SSN = '987-65-4321';
const BIRTH = '1979-03-14';
/** A value in a field the schema does not call sensitive: masked in service text all the same. */
const MIDDLE = 'Zebulon-Quartz';
/** Every form a leak of them could take. */
const LEAKS = [SSN, SSN.replace(/-/g, ''), BIRTH, BIRTH.replace(/-/g, ''), WRITE_TOKEN];
const leaked = (text: string, extra: string[] = []) => [...LEAKS, ...extra].filter((s) => text.includes(s));

/**
 * The one gate for service text (src/util/mask.ts): a service that refuses every write quoting
 * its request body and Authorization header (`ohs sim --quote-refusals`) gets no SSN, birth date
 * or token into what `ohs apply` and `ohs outbox --json` print, into the outbox's stored error,
 * the mirror's bytes (outside the body kept for `outbox resolve --retry`) or the BI snapshot; the
 * stored error keeps its code, status and field names. Over real HTTP, on both engines, with the
 * claiming connection's durability read back.
 */
describe.each(engines)('service text through the masking gate (%s)', { timeout: 300_000 }, (engine) => {
  const sim = withSim({ scale: 0.02 });
  const target = withTargets(engine);

  it('a refusal quoting the body and the token leaves no SSN, birth date or token in any output, the outbox error or the snapshot', async () => {
    const db = await target();
    const { dir } = workdir(sim().url, db);
    await syncStreams(sim(), db, ['applicant']);
    const applicant = sim().truth().Applicant[0];
    const org = sim().truth().Org[0];
    const file = writeCsv(
      join(dir, 'changes.csv'),
      ['op', 'id', 'ssn', 'nameFirst', 'nameLast', 'OrgId', 'dateOfBirth', 'nameMiddle'],
      [
        ['applicant.update', String(applicant?.id), SSN, '', '', '', '', ''],
        ['person.create', '', '', 'Quinn', 'Gatekeeper', String(org?.id), BIRTH, MIDDLE],
      ],
    );
    const planned = await runOhs(['plan', file], { cwd: dir, env });
    expect(planned.code, planned.stderr).toBe(0);
    expect(leaked(planned.stdout + planned.stderr)).toEqual([]);

    sim().configure({ quoteRefusals: true });
    const applied = await runOhs(['apply', '--log-level', 'debug'], { cwd: dir, env });
    sim().configure({ quoteRefusals: false });
    const printed = applied.stdout + applied.stderr;
    // The service did refuse: its status, code and the fields its text names reached the
    // output; its text (quoting the body and the header) did not.
    expect(printed).toContain(
      'INVALID_REQUEST 400: refused: status 400, service code INVALID_REQUEST, names',
    );
    expect(printed).not.toMatch(/Bearer|rejected/);
    expect(leaked(printed, [MIDDLE])).toEqual([]);

    const outbox = await runOhs(['outbox', '--json'], { cwd: dir, env });
    expect(outbox.code, outbox.stderr).toBe(0);
    const items = JSON.parse(outbox.stdout) as { state: string; error: string | null }[];
    expect(items.map((i) => i.state)).toEqual(['failed', 'failed']);
    for (const i of items) {
      // Useful still: the code, the status, the field names; the text withheld.
      expect(i.error).toMatch(
        /^INVALID_REQUEST 400: refused: status 400, service code INVALID_REQUEST, names .*; its text withheld: /,
      );
      expect(leaked(String(i.error), [MIDDLE])).toEqual([]);
    }
    expect(items[0]?.error).toContain('names ssn;');
    expect(items[1]?.error).toMatch(/names .*dateOfBirth.*nameMiddle/);
    expect(leaked(outbox.stdout)).toEqual([]);

    // The mirror: the token nowhere; the SSN and birth date only in the bodies kept for a retry.
    const bytes = mirrorBytes(db);
    expect(bytes).not.toContain(WRITE_TOKEN);
    const errors = await withMirror(db, async (m) =>
      (await m.db.selectFrom('outbox').select(['error', 'response', 'request']).execute())
        .map((r) => `${r.error} ${r.response} ${r.request}`)
        .join('\n'),
    );
    expect(leaked(errors, [MIDDLE])).toEqual([]);

    // The BI snapshot: none of them, the outbox emptied.
    const path = join(mkdtempSync(join(tmpdir(), 'ohs-bi-')), 'bi.sqlite');
    await withMirror(db, (m) => writeSnapshot(m, { path, mode: '0640', group: null }, false));
    expect(statSync(path).mode & 0o777).toBe(0o640);
    expect(leaked(readFileSync(path).toString('latin1'), [MIDDLE])).toEqual([]);
  });

  it('a service that rewords what it refuses leaks no date, SSN or name in any spelling into output, the outbox or the mirror', async () => {
    const db = await target();
    const { dir } = workdir(sim().url, db);
    await syncStreams(sim(), db, ['applicant']);
    const org = sim().truth().Org[0];
    const licence = 'd9876543';
    const file = writeCsv(
      join(dir, 'people.csv'),
      ['op', 'nameFirst', 'nameLast', 'OrgId', 'dateOfBirth', 'nameMiddle', 'streetSecondary', 'applicant'],
      [
        [
          'person.create',
          'Quinn',
          'Reworded',
          String(org?.id),
          '1961-07-04',
          MIDDLE,
          licence,
          `[{"ssn":"${SSN}"}]`,
        ],
        ['person.create', 'Rita', 'Reworded', String(org?.id), '1971-02-03', '', '', ''],
      ],
    );
    const planned = await runOhs(['plan', file], { cwd: dir, env });
    expect(planned.code, planned.stderr).toBe(0);

    sim().configure({ rewordErrors: true });
    const applied = await runOhs(['apply', '--log-level', 'debug'], { cwd: dir, env });
    sim().configure({ rewordErrors: false });
    // Every spelling the service used (src/sim/http-error.ts rewordings), and the values as sent.
    const reworded = [
      'July 4, 1961',
      '04-JUL-61',
      '07/04/61',
      '4 Jul 1961',
      'February 3, 1971',
      '03-FEB-71',
      '02/03/71',
      '3 Feb 1971',
      '987.65.4321',
      '987-654321',
      MIDDLE.toUpperCase(),
      licence.toUpperCase(),
    ];
    const sent = ['1961-07-04', '1971-02-03', SSN, MIDDLE, licence];
    const found = (text: string, forms: string[], anyCase = true) =>
      forms.filter((f) => (anyCase ? text.toLowerCase().includes(f.toLowerCase()) : text.includes(f)));
    const printed = applied.stdout + applied.stderr;
    // The service did answer, reworded: its refusal reached the output as its code and status.
    expect(printed).toContain('INVALID_REQUEST 400: refused: status 400, service code INVALID_REQUEST');
    expect(printed).not.toContain('could not accept');
    expect(found(printed, [...reworded, ...sent])).toEqual([]);

    const outbox = await runOhs(['outbox', '--json'], { cwd: dir, env });
    expect(outbox.code, outbox.stderr).toBe(0);
    const items = JSON.parse(outbox.stdout) as { state: string; error: string | null }[];
    expect(items.map((i) => i.state)).toEqual(['failed', 'failed']);
    for (const i of items) {
      expect(i.error).toMatch(
        /^INVALID_REQUEST 400: refused: status 400, service code INVALID_REQUEST, names /,
      );
      // Field names stay, the values do not.
      expect(i.error).toMatch(/names .*dateOfBirth/);
      expect(found(String(i.error), [...reworded, ...sent])).toEqual([]);
    }
    // The items' payloads are shown with their sensitive fields masked (a middle name is not one).
    expect(found(outbox.stdout, reworded, false)).toEqual([]);
    expect(found(outbox.stdout, ['1961-07-04', '1971-02-03', SSN])).toEqual([]);

    // The mirror: no reworded form anywhere in its bytes (the values as sent stay only in the
    // request bodies kept for a retry); the stored errors and answers hold none in any form.
    expect(found(mirrorBytes(db), reworded, false)).toEqual([]);
    const stored = await withMirror(db, async (m) =>
      (await m.db.selectFrom('outbox').select(['error', 'response']).execute())
        .map((r) => `${r.error} ${r.response}`)
        .join('\n'),
    );
    expect(found(stored, [...reworded, ...sent])).toEqual([]);
  });

  it("the write-back's claiming connection commits durably, read back from the engine", async () => {
    const db = await target();
    const client = clientFor(sim(), { concurrency: 2, requestsPerSecond: 5000 });
    try {
      await withMirror(db, async (m) => {
        const before = await m.durability();
        await applyOutbox(client, m, {
          concurrency: 2,
          deletes: 'confirmed',
          settleMs: defaults.writeback.settleMs,
          agreeingReads: defaults.writeback.agreeingReads,
        });
        const after = await m.durability();
        if (engine === 'sqlite') {
          expect(before).toBe('NORMAL'); // the sync may keep NORMAL
          expect(after).toBe('FULL');
        } else {
          expect(before).toBe('on');
          expect(after).toBe('on');
        }
      });
    } finally {
      await client.close();
    }
  });

  it('zero-height rows and zero-width columns are refused like hidden ones; nothing queued', async () => {
    const db = await target();
    const { dir } = workdir(sim().url, db);
    await syncStreams(sim(), db, ['invoice']);
    const inv = sim()
      .truth()
      .Invoice.find((i) => Number(i.balance) > 100);
    const build = async (name: string, edit: (xml: string) => string) => {
      const wb = new ExcelJS.Workbook();
      const ws = wb.addWorksheet('Pay');
      ws.addRow(['InvoiceId', 'amountToPay', 'PersonId']);
      ws.addRow([inv?.id, 5, 7]);
      ws.addRow([inv?.id, 9, 8]);
      ws.getColumn(3).width = 10;
      // exceljs writes neither a height nor a width of 0: set in the sheet's XML, as Excel does.
      const zip = await JSZip.loadAsync(await wb.xlsx.writeBuffer());
      const part = 'xl/worksheets/sheet1.xml';
      zip.file(part, edit(await (zip.file(part)?.async('string') ?? Promise.resolve(''))));
      const out = join(dir, name);
      writeFileSync(out, await zip.generateAsync({ type: 'nodebuffer' }));
      return out;
    };
    const flat = await build('flat-row.xlsx', (x) =>
      x.replace(/<row r="3"/, '<row r="3" ht="0" customHeight="1"'),
    );
    const thin = await build('thin-col.xlsx', (x) =>
      x.replace(/(<col [^>]*min="3"[^>]*?)width="[^"]*"/, '$1width="0"'),
    );
    const a = await runOhs(['plan', flat, '--op', 'payment'], { cwd: dir, env });
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/INPUT_INVALID: .*flat-row\.xlsx: sheet 'Pay' row 3 is of zero height/);
    const b = await runOhs(['plan', thin, '--op', 'payment'], { cwd: dir, env });
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(
      /INPUT_INVALID: .*thin-col\.xlsx: sheet 'Pay': column C \(PersonId\) is of zero width/,
    );
    const queued = await withMirror(db, async (m) => m.db.selectFrom('outbox').select('id').execute());
    expect(queued).toEqual([]);
  });
});
