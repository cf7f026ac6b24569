import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { OHS_BIN } from './cli.js';

/** The state letter of /proc/PID/stat ('Z': zombie), undefined once the process is gone. */
export function procState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).charAt(0);
  } catch {
    return undefined;
  }
}

export interface Unreaped {
  /** The `ohs` process (the grandchild). */
  pid: number;
  /** SIGKILLs the `ohs` process and resolves once it is a zombie nobody reaps. */
  kill(): Promise<void>;
  /** Ends the parent (the zombie is then reaped by init). */
  close(): Promise<void>;
}

/**
 * Starts `ohs ARGS` under a parent that never reaps it (as in a container without an init): a
 * shell backgrounds `ohs`, prints its pid and execs `sleep`, which never waits for children. A
 * killed `ohs` stays a zombie, whose pid kill(pid, 0) still finds, until the parent ends.
 */
export async function startUnreaped(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Unreaped> {
  const parent: ChildProcess = spawn(
    '/bin/sh',
    ['-c', '"$OHS_NODE" "$OHS_BIN_PATH" "$@" >/dev/null 2>&1 & echo $!; exec sleep 3600', 'sh', ...args],
    {
      cwd: options.cwd ?? process.cwd(),
      env: { ...process.env, ...options.env, OHS_NODE: process.execPath, OHS_BIN_PATH: OHS_BIN },
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  const pid = await new Promise<number>((resolve, reject) => {
    let buf = '';
    parent.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve(Number(buf.slice(0, nl)));
    });
    parent.once('exit', () => reject(new Error('the non-reaping parent exited early')));
  });
  return {
    pid,
    async kill() {
      process.kill(pid, 'SIGKILL');
      // Waits for an event (the kernel turning the process into a zombie), bounded; no ordering sleep.
      for (let i = 0; i < 500 && procState(pid) !== 'Z'; i++) await new Promise((r) => setTimeout(r, 20));
      if (procState(pid) !== 'Z') throw new Error(`pid ${pid} is not a zombie (state ${procState(pid)})`);
    },
    async close() {
      if (parent.exitCode === null && parent.signalCode === null) {
        parent.kill('SIGKILL');
        await once(parent, 'exit');
      }
    },
  };
}
