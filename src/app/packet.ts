import { createHash } from 'node:crypto';
import { lstat, mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config/index.js';
import { type AsOf, asOfInstant } from '../dates.js';
import { OutputError } from '../errors.js';
import {
  AsOfBeforeHistoryError,
  historyStart,
  latestChange,
  type Mirror,
  policiesAsOf,
} from '../mirror/index.js';
import { CsvRenderer, type CsvSettings } from '../render/index.js';
import type { Column, Row } from '../render/types.js';
import { checkOrgYear, packetContents, packetFiles, reportNamed } from '../reports/index.js';
import { PrivateFolder, writeExclusive } from '../util/safe-file.js';
import { checkSynced } from './reports.js';

/**
 * The audit packet of one employer and year as of an instant (`ohs packet`): a folder holding
 * the packet's files (src/reports/packet/: a product of the compliance report, read from the
 * mirror) and MANIFEST.sha256. No file holds the time it was made: the same arguments on the
 * same mirror give the same bytes. The folder is written under a temporary name and renamed
 * whole (mode 0700, files 0600): never half there.
 */
export interface PacketOptions {
  orgId: number;
  year: number;
  /** The instant (`--as-of-time`, resolved: dates.ts `resolveAsOf`); absent: the mirror's latest data. */
  asOf?: AsOf;
  outDir: string;
}

export interface PacketResult {
  dir: string;
  files: string[];
}

/**
 * `packet-org1001-2026-at-20260615T020000Z`: the org, the year and the instant rounded up to the
 * second (the instant its data holds, never a second before it), so `--as-of-time` with the
 * name's instant makes the same packet.
 */
export function packetName(orgId: number, year: number, instant: string): string {
  // Already whole (writePacket rounds before the run): the name says the instant read.
  const basic = instant.slice(0, 19).replace(/[-:]/g, '');
  return `packet-org${orgId}-${year}-at-${basic}Z`;
}

/** An instant rounded up to the whole second, ISO 8601 UTC with milliseconds. */
function upToSecond(instant: string): string {
  return new Date(Math.ceil(Date.parse(instant) / 1000) * 1000).toISOString();
}

/**
 * The instant of the mirror's latest data: the end of its latest successful sync run, the latest
 * policy version, or the latest change of the compliance report's inputs (a write-back answer
 * after the last sync changes them too), whichever is last. A packet without --as-of-time is
 * named for it and reads the mirror as known then, so the same arguments give the same bytes for
 * as long as nothing newer arrives (and a later packet gets a new name).
 */
async function latestDataInstant(mirror: Mirror, streams: readonly string[]): Promise<string> {
  const run = await mirror.db
    .selectFrom('sync_run')
    .select((eb) => eb.fn.max('ended_at').as('at'))
    .where('outcome', '=', 'ok')
    .executeTakeFirst();
  const policies = (await policiesAsOf(mirror.db, undefined)).map((p) => p.valid_from);
  const changed = await latestChange(mirror.db, streams);
  const times = [run?.at as string | null | undefined, ...policies, changed].filter(
    (t): t is string => typeof t === 'string',
  );
  const last = Math.max(...times.map((t) => Date.parse(t)));
  return new Date(last).toISOString();
}

/**
 * The packet's instant (`--as-of-time`, or the mirror's latest data) and the instant its files
 * read the mirror at (undefined: the present, for a mirror without history).
 */
async function packetInstant(
  mirror: Mirror,
  given: string | undefined,
  streams: readonly string[],
): Promise<{ at: string | undefined; instant: string }> {
  const start = await historyStart(mirror.db);
  if (given !== undefined) {
    if (start === null || given < start)
      throw new AsOfBeforeHistoryError(
        `--as-of-time ${given} is before the mirror's history begins (${start ?? 'no complete sync yet'}): the mirror did not know then what it holds; give a later instant, or leave --as-of-time out for its latest data`,
      );
    return { at: given, instant: given };
  }
  // Rounded up to the second as the folder's name is: the name's instant gives the same packet.
  const instant = upToSecond(await latestDataInstant(mirror, streams));
  // Read as known at that instant when the history answers for it (a mirror upgraded from before
  // history and never synced since has none: it reads the present).
  return { at: start === null ? undefined : instant, instant };
}

/** Makes the packet; returns its folder and files. Bad input is refused before anything is written. */
export async function writePacket(mirror: Mirror, config: Config, o: PacketOptions): Promise<PacketResult> {
  const compliance = reportNamed('compliance');
  await checkSynced(mirror, [compliance]);
  // The instant is rounded up to the whole second before anything is read, never the name after:
  // the name's instant is the instant every file reads, so one name is one content.
  const given = o.asOf === undefined ? undefined : upToSecond(o.asOf.iso);
  const { at, instant } = await packetInstant(mirror, given, compliance.streams);
  // The mirror's latest data is an instant too: its date in the zone is the packet's as-of date.
  const asOf = asOfInstant(Date.parse(instant), config.timezone, o.asOf === undefined ? 'now' : 'instant');
  await checkOrgYear(mirror.db, o.orgId, o.year, at, instant);

  const name = packetName(o.orgId, o.year, instant);
  const final = join(o.outDir, name);
  // The first folder it had to make, removed again on failure: nothing is left behind.
  const made = await mkdir(o.outDir, { recursive: true }).catch((err: unknown) => {
    throw new OutputError(
      `--out ${o.outDir}: cannot make the folder (${(err as NodeJS.ErrnoException).code ?? err})`,
    );
  });
  // lstat: a link at the final name, dangling or not, is something there too.
  if (
    await lstat(final).then(
      () => true,
      () => false,
    )
  )
    throw new OutputError(`${final}: the packet already exists; remove it or give another --out`);
  // The folder is made, checked before each file and before the rename without following links
  // (src/util/safe-file.ts PrivateFolder): one swapped by another process is refused.
  let folder: PrivateFolder | undefined;
  try {
    folder = await PrivateFolder.make(join(o.outDir, `.${name}.tmp-${process.pid}`));
    const temp = folder.path;
    const { csv, html } = await packetContents(mirror.db, {
      orgId: o.orgId,
      year: o.year,
      asOf,
      at,
      instant,
      options: config.reports.options,
    });
    // Each file checked into the folder made for it (a swapped folder is refused before a write).
    for (const { name, columns, rows } of csv) {
      folder.check();
      await writeCsv(join(temp, name), columns, rows, config.reports.csv);
    }
    folder.check();
    writeExclusive(join(temp, 'index.html'), html, 0o600);
    const manifest = await manifestOf(
      temp,
      packetFiles.map(([f]) => f),
    );
    folder.check();
    writeExclusive(join(temp, 'MANIFEST.sha256'), manifest, 0o600);
    await folder.publish(final);
  } catch (err) {
    await folder?.remove();
    if (made !== undefined) await rm(made, { recursive: true, force: true });
    throw err;
  }
  return { dir: final, files: [...packetFiles.map(([f]) => join(final, f)), join(final, 'MANIFEST.sha256')] };
}

/** A CSV as the reports write it (CsvRenderer: the same cells, the file created 0600). */
async function writeCsv(
  file: string,
  columns: Column[],
  rows: readonly Row[],
  settings: CsvSettings,
): Promise<void> {
  const r = new CsvRenderer(file, { name: 'packet', columns }, settings);
  try {
    for (const row of rows) await r.write(row);
    await r.finish();
  } catch (err) {
    await r.abort();
    throw err;
  }
}

/** `sha256sum` format: `HEX  NAME`, one line per file, in name order. */
async function manifestOf(dir: string, names: readonly string[]): Promise<string> {
  const lines: string[] = [];
  for (const n of [...names].sort())
    lines.push(
      `${createHash('sha256')
        .update(await readFile(join(dir, n)))
        .digest('hex')}  ${n}`,
    );
  return `${lines.join('\n')}\n`;
}
