import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { chooseDriver, sqliteDriverNames, supportedDrivers } from '../src/mirror/index.js';
import { table } from './sandbox.js';

/**
 * The SQLite drivers against each other on this Node, each in its own process on the mirror's
 * hot path (see sqlite-driver-child.ts): better-sqlite3 12, better-sqlite3 13 and Node's
 * built-in node:sqlite (not used by the mirror: measured as the candidate for later). Ratios
 * are against the driver the mirror chooses on this Node, measured in the same run. A driver
 * that cannot run here is still tried, and its crash reported, so the table shows why the choice
 * is what it is. OHS_BENCH_SQLITE12 points at a better-sqlite3 12 built for this Node (the
 * installed one is built for the Node that ran npm ci).
 */
const child = fileURLToPath(new URL('./sqlite-driver-child.js', import.meta.url));

interface Figures {
  driver: string;
  version: string;
  upsertPerSec: number;
  readPerSec: number;
  scanPerSec: number;
  peakRssMb: number;
}

async function runDriver(driver: string, rows: number): Promise<{ figures?: Figures; outcome: string }> {
  const proc = spawn(process.execPath, [child, driver, String(rows)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  proc.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const [code, signal] = (await once(proc, 'close')) as [number | null, NodeJS.Signals | null];
  const line = out.split('\n').find((l) => l.startsWith('{'));
  const figures = line === undefined ? undefined : (JSON.parse(line) as Figures);
  const how = signal ?? (code === 134 ? 'SIGABRT' : code === 139 ? 'SIGSEGV' : `exit ${code}`);
  const reason = err.split('\n').find((l) => /Error|Assertion|Cannot find/.test(l)) ?? '';
  const outcome =
    code === 0
      ? 'ok'
      : figures === undefined
        ? `failed: ${how} ${reason.slice(0, 80)}`
        : `crashed at exit: ${how}`;
  return figures === undefined ? { outcome } : { figures, outcome };
}

const ROUNDS = 3;

function best(a: Figures, b: Figures): Figures {
  return {
    ...a,
    upsertPerSec: Math.max(a.upsertPerSec, b.upsertPerSec),
    readPerSec: Math.max(a.readPerSec, b.readPerSec),
    scanPerSec: Math.max(a.scanPerSec, b.scanPerSec),
    peakRssMb: Math.max(a.peakRssMb, b.peakRssMb),
  };
}

export async function benchSqliteDrivers(scale: number): Promise<string> {
  const rows = Math.round(40_000 * scale);
  const chosen = chooseDriver(undefined);
  const supported: string[] = supportedDrivers();
  // Rounds, each driver once per round in turn, best figure of each kept: on a shared machine
  // the load changes from second to second, and the best of interleaved runs is what the driver
  // can do, free of whoever else was busy at the time.
  const drivers = [chosen, ...sqliteDriverNames.filter((d) => d !== chosen), 'node:sqlite'];
  const results: Awaited<ReturnType<typeof runDriver>>[] = drivers.map(() => ({ outcome: '-' }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, driver] of drivers.entries()) {
      const r = await runDriver(driver, rows);
      const prev = results[i];
      const figures =
        prev?.figures === undefined
          ? r.figures
          : r.figures === undefined
            ? prev.figures
            : best(prev.figures, r.figures);
      // One crash in three rounds is a crash: the first outcome other than ok is the one shown.
      const outcome =
        prev === undefined || prev.outcome === '-' || prev.outcome === 'ok' ? r.outcome : prev.outcome;
      results[i] = figures === undefined ? { outcome } : { figures, outcome };
    }
  }
  const base = results[0]?.figures;
  const ratio = (v: number | undefined, b: number | undefined) =>
    v === undefined || b === undefined ? '-' : `${(v / b).toFixed(2)}x`;
  const rowsOut = drivers.map((driver, i) => {
    const r = results[i];
    const f = r?.figures;
    return {
      driver,
      version: f?.version ?? '-',
      'mirror uses': driver === chosen ? 'yes' : supported.includes(driver) ? 'may (forced)' : 'no',
      'upsert/s': f?.upsertPerSec ?? '-',
      ratio: ratio(f?.upsertPerSec, base?.upsertPerSec),
      'read/s': f?.readPerSec ?? '-',
      'read ratio': ratio(f?.readPerSec, base?.readPerSec),
      'scan/s': f?.scanPerSec ?? '-',
      'scan ratio': ratio(f?.scanPerSec, base?.scanPerSec),
      'peak MB': f?.peakRssMb ?? '-',
      outcome: r?.outcome ?? '-',
    };
  });
  return [
    `sqlite-drivers: ${rows} rows, best of ${ROUNDS} interleaved rounds, on Node ${process.versions.node} (Node-API ${process.versions.napi}); ratios against ${chosen}, the mirror's driver here`,
    table(rowsOut),
  ].join('\n');
}
