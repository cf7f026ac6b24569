/**
 * Crash points for the SIGKILL tests: `OHS_TEST_CRASH_AT=<name>` makes the process kill itself
 * with SIGKILL when it reaches that point (a real kill, as a power cut would be, at an instant a
 * test could not hit by timing). Unset in production: one environment look-up per point.
 */
export function crashPoint(name: string): void {
  if (process.env.OHS_TEST_CRASH_AT === name) process.kill(process.pid, 'SIGKILL');
}
