import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real PostgreSQL server for the tests: `initdb` into a temporary folder, `pg_ctl start` on a
 * free loopback port, stopped (and the folder removed) by `stop()`. The machine's binaries are
 * found under /usr/lib/postgresql/<version>/bin (or `OHS_PG_BIN`). `initdb` refuses root, so
 * when the tests run as root the cluster belongs to the `postgres` user (Debian's package
 * creates it) and every server command runs as that user.
 */
export interface PgServer {
  /** `postgres://ohs@127.0.0.1:PORT/postgres`: a superuser without a password (trust on loopback). */
  readonly url: string;
  readonly port: number;
  /** A fresh database for one test file: returns its connection string. */
  createDatabase(name: string): string;
  stop(): void;
}

/** `pg_ctl stop -m immediate` of a cluster whose start may not have finished (errors ignored). */
export function stopCluster(dir: string): void {
  const bin = pgBinDir();
  if (bin === undefined) return;
  const ids = process.getuid?.() === 0 ? postgresIds() : undefined;
  spawnSync(join(bin, 'pg_ctl'), ['-D', join(dir, 'data'), '-m', 'immediate', '-w', 'stop'], {
    ...(ids === undefined ? {} : { uid: ids.uid, gid: ids.gid }),
  });
}

export function pgBinDir(): string | undefined {
  const fromEnv = process.env.OHS_PG_BIN;
  if (fromEnv !== undefined && existsSync(join(fromEnv, 'initdb'))) return fromEnv;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function postgresIds(): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

/**
 * Starts the server without blocking the event loop (initdb and pg_ctl run as child processes
 * awaited asynchronously), so a caller can start it in the background. `port`: the port to
 * listen on (default: a free one); `dir`: an empty folder for the cluster (default: a new
 * temporary one), removed by `stop()`.
 */
export async function startPgServer(options: { port?: number; dir?: string } = {}): Promise<PgServer> {
  const bin = pgBinDir();
  if (bin === undefined) {
    throw new Error('PostgreSQL binaries not found (install Debian package postgresql, or set OHS_PG_BIN)');
  }
  const asRoot = process.getuid?.() === 0;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'ohs-pg-'));
  const data = join(dir, 'data');
  mkdirSync(data);
  const ids = asRoot ? postgresIds() : undefined;
  if (ids !== undefined) {
    chownSync(dir, ids.uid, ids.gid);
    chownSync(data, ids.uid, ids.gid);
  }
  const run = (cmd: string, args: string[]): void => {
    const res = spawnSync(cmd, args, {
      encoding: 'utf8',
      ...(ids === undefined ? {} : { uid: ids.uid, gid: ids.gid }),
    });
    if (res.status !== 0) {
      throw new Error(`${cmd} ${args.join(' ')} failed (${res.status}): ${res.stderr || res.stdout}`);
    }
  };
  const runAsync = (cmd: string, args: string[]): Promise<void> =>
    new Promise((resolve, reject) => {
      execFile(
        cmd,
        args,
        { encoding: 'utf8', ...(ids === undefined ? {} : { uid: ids.uid, gid: ids.gid }) },
        (err, stdout, stderr) => {
          if (err === null) resolve();
          else reject(new Error(`${cmd} ${args.join(' ')} failed (${err.code}): ${stderr || stdout}`));
        },
      );
    });
  const port = options.port ?? (await freePort());
  const opts = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-k ${dir}`,
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=200',
  ].join(' ');
  try {
    await runAsync(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'ohs', '--no-sync', '-E', 'UTF8']);
    const log = join(dir, 'server.log');
    await runAsync(join(bin, 'pg_ctl'), ['-D', data, '-o', opts, '-l', log, '-w', '-t', '60', 'start']);
  } catch (err) {
    spawnSync(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'], {
      ...(ids === undefined ? {} : { uid: ids.uid, gid: ids.gid }),
    });
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const url = `postgres://ohs@127.0.0.1:${port}/postgres`;
  let stopped = false;
  return {
    url,
    port,
    createDatabase(name: string): string {
      run(join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'ohs', name]);
      return `postgres://ohs@127.0.0.1:${port}/${name}`;
    },
    stop(): void {
      if (stopped) return;
      stopped = true;
      try {
        run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
