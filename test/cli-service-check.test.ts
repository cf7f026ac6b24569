import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOhs } from './helpers/cli.js';
import { ID_START } from './helpers/mirror.js';
import { WRITE_TOKEN, withSim } from './helpers/sim.js';

/** A web server that is not the service: the same answer to every path, counting the requests. */
async function otherServer(
  status: number,
  type: string,
  body: string,
): Promise<{ url: string; server: Server; requests: () => number }> {
  let n = 0;
  const server = createServer((req, res) => {
    n++;
    req.resume();
    res.writeHead(status, { 'content-type': type });
    res.end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server, requests: () => n };
}

/** A server of our own handler, counting the requests. */
async function serve(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; server: Server; requests: () => number }> {
  let n = 0;
  const server = createServer((req, res) => {
    n++;
    handler(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server, requests: () => n };
}

/**
 * A static file server as node's http makes one: GET serves the files of a folder (404 for
 * others), any other method 501 Not Implemented.
 */
function staticFiles(root: string) {
  return (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(501, { 'content-type': 'text/plain' }).end('Not Implemented');
      return;
    }
    try {
      const body = readFileSync(join(root, (req.url ?? '/').split('?')[0] || 'index.html'));
      res.writeHead(200, { 'content-type': 'text/html' }).end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
    }
  };
}

/** A folder with config/local.json naming `baseUrl` and a mirror file in the folder (not there yet). */
function folder(baseUrl: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'ohs-check-'));
  mkdirSync(join(dir, 'config'));
  writeFileSync(
    join(dir, 'config', 'local.json'),
    JSON.stringify({
      baseUrl,
      db: 'ohs.sqlite',
      sync: { idStart: ID_START },
    }),
  );
  return dir;
}

const commands = [['sync'], ['probe'], ['run', 'nightly']] as const;

/**
 * The one service check of every command that talks to the service, over real HTTP: each case
 * its own code and one line, in at most two requests, and nothing created before it passes (the
 * folder holds only its config afterwards: no mirror file, not even an empty one).
 */
describe('the service check', () => {
  const sim = withSim({ scale: 0.03 });
  const servers: Server[] = [];
  afterAll(() => {
    for (const s of servers) s.close();
  });

  async function expectRefused(
    baseUrl: string,
    token: string,
    code: string,
    line: RegExp,
    withinMs?: number,
  ): Promise<void> {
    for (const args of commands) {
      const dir = folder(baseUrl);
      const started = Date.now();
      const r = await runOhs(args, { cwd: dir, env: { OHS_TOKEN: token, OHS_DB: '', OHS_TOKEN_FILE: '' } });
      if (withinMs !== undefined) expect(Date.now() - started, args.join(' ')).toBeLessThan(withinMs);
      const lines = r.stderr.split('\n').filter((l) => l.startsWith('ohs: '));
      expect(lines, `${args.join(' ')}: ${r.stderr}`).toHaveLength(1);
      expect(lines[0], args.join(' ')).toMatch(new RegExp(`^ohs: ${code}: `));
      expect(lines[0], args.join(' ')).toMatch(line);
      expect(r.stderr, args.join(' ')).not.toContain('stream failed');
      expect(r.code, args.join(' ')).not.toBe(0);
      expect(readdirSync(dir), args.join(' ')).toEqual(['config']);
    }
  }

  it('nothing listening: UNREACHABLE', async () => {
    const closed = await otherServer(200, 'text/plain', '');
    closed.server.close();
    await expectRefused(closed.url, WRITE_TOKEN, 'UNREACHABLE', /connection refused.*check baseUrl/);
  });

  it('a 404 path: SERVICE_NOT_FOUND', async () => {
    await expectRefused(
      `${sim().url}/wrong`,
      WRITE_TOKEN,
      'SERVICE_NOT_FOUND',
      /answered 404 \(check baseUrl/,
    );
  });

  it('a web server answering HTML for every path: NOT_THE_SERVICE, in two requests', async () => {
    const html = await otherServer(200, 'text/html', '<!DOCTYPE html><html><body>Welcome</body></html>');
    servers.push(html.server);
    await expectRefused(
      html.url,
      WRITE_TOKEN,
      'NOT_THE_SERVICE',
      /answered an HTML page where the service answers a JSON list/,
    );
    expect(html.requests()).toBe(2 * commands.length);
  });

  it('a web server answering JSON of another shape: NOT_THE_SERVICE', async () => {
    const json = await otherServer(200, 'application/json', '{"status":"ok","version":"2.1"}');
    servers.push(json.server);
    await expectRefused(json.url, WRITE_TOKEN, 'NOT_THE_SERVICE', /answered JSON of another shape/);
    expect(json.requests()).toBe(2 * commands.length);
  });

  it('a static file server (501 to POST): NOT_THE_SERVICE in two requests, each command under 10 s', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ohs-static-'));
    writeFileSync(join(root, 'index.html'), '<!DOCTYPE html><html><body>files</body></html>');
    const files = await serve(staticFiles(root));
    servers.push(files.server);
    await expectRefused(files.url, WRITE_TOKEN, 'NOT_THE_SERVICE', /answered 501 Not Implemented/, 10_000);
    expect(files.requests()).toBe(2 * commands.length);
  });

  it('a server answering 405 to everything: NOT_THE_SERVICE', async () => {
    const refusing = await otherServer(405, 'text/plain', 'Method Not Allowed');
    servers.push(refusing.server);
    await expectRefused(
      refusing.url,
      WRITE_TOKEN,
      'NOT_THE_SERVICE',
      /answered 405 Method Not Allowed/,
      10_000,
    );
    expect(refusing.requests()).toBe(2 * commands.length);
  });

  it('https:// against the plain-HTTP sandbox: WRONG_SCHEME, use http://', async () => {
    const https = sim().url.replace(/^http:/, 'https:');
    await expectRefused(
      https,
      WRITE_TOKEN,
      'WRONG_SCHEME',
      /^ohs: WRONG_SCHEME: https:\/\/ but .*plain HTTP: use http:\/\//,
      10_000,
    );
  });

  it('http:// against a TLS server (a self-signed certificate): WRONG_SCHEME, use https://', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ohs-tls-'));
    const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
      ],
      { stdio: 'ignore' },
    );
    const tls = createTlsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
    });
    tls.listen(0, '127.0.0.1');
    await once(tls, 'listening');
    servers.push(tls as unknown as Server);
    const { port } = tls.address() as AddressInfo;
    await expectRefused(
      `http://127.0.0.1:${port}`,
      WRITE_TOKEN,
      'WRONG_SCHEME',
      /speaks TLS \(HTTPS\): use https:\/\//,
      10_000,
    );
    await expectRefused(
      `https://127.0.0.1:${port}`,
      WRITE_TOKEN,
      'TLS_UNTRUSTED',
      /self-signed|SELF_SIGNED/i,
      10_000,
    );
  });

  it('a wrong token: UNAUTHORIZED, one line, no mirror', async () => {
    await expectRefused(sim().url, 'not-the-token', 'UNAUTHORIZED', /refused the token \(401\).*OHS_TOKEN/);
  });

  describe('the service itself', () => {
    let dir: string;
    beforeAll(async () => {
      dir = folder(sim().url);
      const r = await runOhs(['sync'], {
        cwd: dir,
        env: { OHS_TOKEN: WRITE_TOKEN, OHS_DB: '', OHS_TOKEN_FILE: '' },
      });
      expect(r.code, r.stderr).toBe(0);
    });

    it('passes, and apply on a mirror checks it too before sending', async () => {
      const probe = await runOhs(['probe'], { cwd: dir, env: { OHS_TOKEN: WRITE_TOKEN } });
      expect(probe.code, probe.stderr).toBe(0);
      const html = await otherServer(200, 'text/html', '<html><body>portal</body></html>');
      servers.push(html.server);
      for (const [url, token, code] of [
        [html.url, WRITE_TOKEN, 'NOT_THE_SERVICE'],
        [sim().url, 'not-the-token', 'UNAUTHORIZED'],
        [`${sim().url}/api`, WRITE_TOKEN, 'SERVICE_NOT_FOUND'],
      ] as const) {
        const r = await runOhs(['apply', '--base-url', url], { cwd: dir, env: { OHS_TOKEN: token } });
        expect(
          r.stderr.split('\n').filter((l) => l.startsWith('ohs: ')),
          r.stderr,
        ).toEqual([expect.stringMatching(new RegExp(`^ohs: ${code}: `))]);
      }
      expect(html.requests()).toBe(2);
      const ok = await runOhs(['apply'], { cwd: dir, env: { OHS_TOKEN: WRITE_TOKEN } });
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stdout).toContain('nothing to send');
    });
  });
});
