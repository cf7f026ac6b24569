import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, terminalStream } from '../../src/log.js';
import { progressBoard } from '../../src/sync/progress.js';
import { OHS_BIN } from '../helpers/cli.js';
import { cliConfig, cliEnv, withTmpDir } from '../helpers/mirror.js';
import { fakeTty, Screen } from '../helpers/screen.js';
import { withSim } from '../helpers/sim.js';

/**
 * On a terminal, one renderer owns the screen while progress bars are shown; log lines
 * (multi-line blocks included) are printed above the bars, never over them.
 */
const barLine = /^ \S+ +\| \d+ records \| \d+ requests \| \d+s$/;

describe('progress bars and log lines on a terminal', () => {
  it('log blocks go above the bars; the bars are redrawn below them, whole', async () => {
    // pino-pretty hands its lines on through a stream: let them through before going on.
    const flush = () => new Promise((resolve) => setTimeout(resolve, 50));
    const tty = fakeTty(100);
    const board = progressBoard(true, tty);
    const counts = { orderitem: { records: 0, requests: 0 }, invoice: { records: 0, requests: 0 } };
    board.stream('orderitem', () => counts.orderitem);
    board.stream('invoice', () => counts.invoice);
    const logged: string[] = [];
    const toTerminal = terminalStream(tty);
    const logger = createLogger({
      level: 'info',
      pretty: true,
      destination: new Writable({
        write(chunk: Buffer, _enc, done) {
          logged.push(chunk.toString());
          toTerminal.write(chunk, done);
        },
      }),
    });
    counts.orderitem = { records: 250, requests: 1 };
    logger.error({ code: 'UNAUTHORIZED', detail: { a: 1, b: [1, 2] } }, 'stream failed');
    await flush();
    counts.invoice = { records: 3000, requests: 3064 };
    logger.info({ pages: 12 }, 'stream synced');
    await flush();
    board.stop();
    logger.info('after the bars');
    await flush();

    const logLines = logged.join('').replace(/\n$/, '').split('\n');
    expect(logLines.length).toBeGreaterThan(6); // multi-line blocks
    const screen = tty.screen.lines();
    const [before, after] = [logLines.slice(0, -1), logLines.slice(-1)];
    // The log text, intact and in order, then the two bars with their last counts, then what
    // was logged once the bars were gone.
    expect(screen).toEqual([
      ...before,
      expect.stringMatching(/^ orderitem +\| 250 records \| 1 requests \| \d+s$/),
      expect.stringMatching(/^ invoice +\| 3000 records \| 3064 requests \| \d+s$/),
      ...after,
    ]);
  });

  const sim = withSim({ scale: 0.02 });
  const tmp = withTmpDir('ohs-tty-');
  const hasScript = spawnSync('script', ['--version']).status === 0;

  it.skipIf(!hasScript)(
    'ohs sync on a pseudo-terminal with a wrong token: one readable line first, no bar, nothing created',
    async () => {
      const db = tmp();
      const config = cliConfig(dirname(db), { timeoutMs: 5000 });
      const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(OHS_BIN)} sync --db ${JSON.stringify(db)} --config ${JSON.stringify(config)}`;
      // script(1) from util-linux runs the command on a pty: stderr is a TTY, as on a terminal.
      const r = await runOhsUnderScript(command, {
        ...cliEnv(sim()),
        OHS_TOKEN: 'wrong-token',
        OHS_LOG_LEVEL: 'info',
      });
      const screen = new Screen();
      screen.feed(r);
      const lines = screen.lines();
      // The service check stops a refused token before any stream starts: no bar is drawn, no
      // stream fails, and the one line on the screen says what was wrong and what to set.
      expect(lines, r).toEqual([
        'ohs: UNAUTHORIZED: the service refused the token (401): it is missing, wrong or expired; set OHS_TOKEN or OHS_TOKEN_FILE: POST /v2/query/core/role',
      ]);
      expect(lines.filter((l) => barLine.test(l))).toEqual([]);
      // Readable as written: the bytes are that line, no cursor movement or colour code.
      expect(r.replace(/\r\n/g, '\n')).toBe(`${lines[0]}\n`);
      // Nothing created: the check ran before the mirror.
      expect(existsSync(db)).toBe(false);
    },
  );
});

/** The bytes a command wrote on a pseudo-terminal (stdout and stderr together). */
async function runOhsUnderScript(command: string, env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    env: { ...process.env, ...env, COLUMNS: '120', LINES: '50' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  await new Promise((resolve) => child.on('close', resolve));
  return out;
}
