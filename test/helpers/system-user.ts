import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A service account as `useradd -r` makes one: no home directory (HOME=/nonexistent), no login
 * shell, no supplementary groups. Tests run commands as it to prove what another user (or a
 * systemd unit's User=) sees; only root can make one, so elsewhere the tests say why they skip.
 */
export interface SystemUser {
  name: string;
  uid: number;
  gid: number;
}

const tools = ['/usr/sbin/useradd', '/usr/sbin/userdel', '/usr/bin/setpriv'];

/** Creates the account, or returns why it cannot (not root, tools missing). */
export function createSystemUser(): SystemUser | string {
  if (process.getuid?.() !== 0) return 'not running as root: cannot create a system user';
  const missing = tools.filter((t) => !existsSync(t));
  if (missing.length > 0) return `missing ${missing.join(', ')}`;
  const name = `ohs-t${randomBytes(3).toString('hex')}`;
  execFileSync('/usr/sbin/useradd', ['-r', '-M', '-d', '/nonexistent', '-s', '/usr/sbin/nologin', name]);
  const id = (flag: string) => Number(execFileSync('id', [flag, name], { encoding: 'utf8' }).trim());
  return { name, uid: id('-u'), gid: id('-g') };
}

/**
 * The first folder on the way to `path` that another user cannot pass through (no `x` for
 * others), or undefined when every folder is open. A checkout in a private folder (`/root`, a
 * 0700 home, a `mktemp -d`) keeps another user from its `bin/ohs.js` and `node_modules`, and a Node
 * unpacked under root's home keeps them from `node`: a test running either as another user then
 * skips, saying which folder is closed.
 */
export function closedFolderOnPath(path: string): string | undefined {
  for (let p = dirname(path); ; p = dirname(p)) {
    if ((statSync(p).mode & 0o001) === 0) return p;
    if (p === dirname(p)) return undefined;
  }
}

/** Why `argv[0]` (a Node) or any script in `argv` cannot be run by another user, if so. */
export function whyNotRunnableByOthers(paths: readonly string[]): string | undefined {
  for (const path of paths) {
    const closed = closedFolderOnPath(path);
    if (closed !== undefined)
      return `${path} cannot be reached by another user (${closed} is closed to others)`;
  }
  return undefined;
}

export function removeSystemUser(user: SystemUser | string | undefined): void {
  if (typeof user !== 'object') return;
  execFileSync('/usr/sbin/userdel', [user.name]);
}

/** The environment systemd gives a unit with `User=` (HOME from the account: /nonexistent). */
export function serviceEnv(user: SystemUser, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: '/nonexistent',
    USER: user.name,
    LOGNAME: user.name,
    SHELL: '/usr/sbin/nologin',
    ...extra,
  };
}

/** Spawns `argv` as the user (setpriv: its uid and gid, no supplementary groups), umask 077. */
export function spawnAs(
  user: SystemUser,
  argv: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): ChildProcess {
  return spawn(
    '/usr/bin/setpriv',
    [
      `--reuid=${user.uid}`,
      `--regid=${user.gid}`,
      '--clear-groups',
      '--',
      '/bin/sh',
      '-c',
      'umask 077 && exec "$@"',
      'sh',
      ...argv,
    ],
    { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

/** Runs `argv` as the user to completion. */
export async function runAs(
  user: SystemUser,
  argv: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnAs(user, argv, options);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { code, stdout, stderr };
}
