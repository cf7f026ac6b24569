import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { afterAll, expect } from 'vitest';

/**
 * Where a test file's time goes, for tuning the suite (not an assertion: nothing here fails a
 * test). With `OHS_TEST_TIMING=/path/file.ndjson`, each test file appends one line: its wall
 * time, the CPU its worker process used, the CPU of the child processes it waited for (the `ohs`
 * CLIs it spawned), and how long its threads waited for a core (run-queue delay, Linux
 * schedstat; all threads, and the main one). On a loaded machine, wall minus the main thread's
 * run-queue delay estimates the wall of an idle one.
 */
const out = process.env.OHS_TEST_TIMING;

/** Nanoseconds this process's threads spent waiting for a core (0 where schedstat is absent). */
function runQueueNs(): number {
  try {
    let total = 0;
    for (const task of readdirSync('/proc/self/task')) {
      const fields = readFileSync(`/proc/self/task/${task}/schedstat`, 'utf8').split(' ');
      total += Number(fields[1] ?? 0);
    }
    return total;
  } catch {
    return 0;
  }
}

/** The same for the main thread only (whose waits delay the tests). */
function mainRunQueueNs(): number {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[1] ?? 0);
  } catch {
    return 0;
  }
}

/** CPU seconds of reaped children (cutime + cstime of /proc/self/stat, in clock ticks of 1/100 s). */
function childrenCpuS(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return 0;
  }
}

if (out !== undefined && out !== '') {
  // From before the test file is imported (its import and collection count), to after its last
  // afterAll; the worker's own start-up (before this module) is `startS`.
  const startS = round(process.uptime());
  const start = {
    wall: performance.now(),
    cpu: process.cpuUsage(),
    rq: runQueueNs(),
    main: mainRunQueueNs(),
    children: childrenCpuS(),
  };
  afterAll(() => {
    const cpu = process.cpuUsage(start.cpu);
    const line = {
      file: relative(process.cwd(), expect.getState().testPath ?? '?'),
      wallS: round((performance.now() - start.wall) / 1000),
      cpuS: round((cpu.user + cpu.system) / 1e6),
      childrenCpuS: round(childrenCpuS() - start.children),
      runQueueS: round((runQueueNs() - start.rq) / 1e9),
      mainRunQueueS: round((mainRunQueueNs() - start.main) / 1e9),
      startS,
      load1: Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]),
    };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  });
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
