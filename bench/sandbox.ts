import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createClient, type OhsClient } from '../src/api/index.js';
import { type ApiConfig, defaultConfig } from '../src/config/index.js';

/** config/default.json through the schema: the benchmarks' resolved options, never re-typed. */
export const defaults = defaultConfig();

const bin = fileURLToPath(new URL('../../bin/ohs.js', import.meta.url));

/**
 * The benchmarks' sandbox: `scale` times its default data, the token, the fixed anchor date every
 * figure of bench/README.md was taken at, and `extra` flags.
 */
export function spawnScaledSandbox(scale: number, token: string, ...extra: string[]) {
  return spawnSandbox(['--scale', String(scale), '--token', token, '--anchor-date', '2026-06-15', ...extra]);
}

/**
 * The sandbox in a child process, so that the server and the code under measurement each have
 * a core (two on this machine) and the benchmark measures the client, not a shared event loop.
 */
export async function spawnSandbox(args: string[]): Promise<{ url: string; stop: () => Promise<void> }> {
  const child: ChildProcess = spawn(
    process.execPath,
    [bin, 'sim', '--port', '0', '--log-level', 'warn', ...args],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve(buf.slice(0, nl).trim());
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited ${code}`)));
  });
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Samples RSS while `fn` runs; returns its result, the seconds it took and the peak RSS in MB. */
export async function measure<T>(
  fn: () => Promise<T>,
): Promise<{ result: T; seconds: number; peakRssMb: number }> {
  globalThis.gc?.();
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const started = performance.now();
  try {
    const result = await fn();
    const seconds = (performance.now() - started) / 1000;
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, seconds, peakRssMb: Math.round(peak / 1048576) };
  } finally {
    clearInterval(timer);
  }
}

export function table(rows: Record<string, string | number>[]): string {
  const cols = Object.keys(rows[0] ?? {});
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(width[i] ?? 0)).join('  ');
  return [line(cols), ...rows.map((r) => line(cols.map((c) => String(r[c]))))].join('\n');
}

/**
 * A client built as the commands build it (`createClient`), from config/default.json (parsed: the
 * one source of defaults) with `api` keys overridden; the benchmarks fix the concurrency unless
 * they give `maxConcurrency`.
 */
export function configuredClient(url: string, token: string, api: Partial<ApiConfig>): OhsClient {
  const config = { ...defaults, baseUrl: url, token };
  const concurrency = api.concurrency ?? config.api.concurrency;
  return createClient({ ...config, api: { ...config.api, maxConcurrency: concurrency, ...api } });
}
