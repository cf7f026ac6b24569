import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export const OHS_BIN = fileURLToPath(new URL('../../bin/ohs.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built `ohs` CLI (as `npx ohs` would) to completion; `via` runs it under another
 * program (`['faketime', '-f', '@2026-11-28 23:00:00']`: a clock of the test's choosing).
 */
export async function runOhs(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; via?: readonly string[] } = {},
): Promise<CliResult> {
  const [program, ...before] = [...(options.via ?? []), process.execPath];
  const startedMs = Date.now();
  const child = spawn(program as string, [...before, OHS_BIN, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(timer);
  // For tuning the suite (CONTRIBUTING.md): each CLI run's seconds, on the worker's stderr.
  if (process.env.OHS_TEST_CLI_TIMES)
    process.stderr.write(`${((Date.now() - startedMs) / 1000).toFixed(1)} s ohs ${args.join(' ')}\n`);
  return { code, stdout, stderr };
}

/** Starts a long-running `ohs` command and resolves with the first line it prints on stdout. */
export async function startOhs(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ child: ChildProcess; firstLine: string; stderr: () => string }> {
  const child = spawn(process.execPath, [OHS_BIN, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const firstLine = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve(buf.slice(0, nl));
    });
    child.once('exit', (code) => reject(new Error(`ohs exited ${code} before printing: ${stderr}`)));
  });
  return { child, firstLine, stderr: () => stderr };
}
