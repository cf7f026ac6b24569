import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A hostile service, beside the sandbox: a small node:http server of our own that forwards every
 * request to the sandbox (so a sync sees the sandbox's real data and can be checked against its
 * truth) except those a behaviour takes over, which it answers the way a broken or hostile
 * service would: an endless body, a body trickled a byte at a time, a page far longer than asked,
 * 200 for any id, errors dressed as 200s, wrong types, null ids, ids beyond 2^53.
 */
export interface Upstream {
  status: number;
  contentType: string;
  text: string;
}

export interface HostileRequest {
  method: string;
  /** Path below the base URL, query string included. */
  path: string;
  body: string;
  /** The sandbox's answer to the same request. */
  upstream(): Promise<Upstream>;
}

/** Answers the request itself and returns true, or returns false to let the sandbox answer. */
export type Behaviour = (req: HostileRequest, res: ServerResponse) => Promise<boolean> | boolean;

export interface Hostile {
  readonly url: string;
  /** Requests the hostile behaviour took over. */
  readonly taken: number;
  use(behaviour: Behaviour | undefined): void;
  close(): Promise<void>;
}

export async function startHostile(upstreamUrl: string): Promise<Hostile> {
  let behaviour: Behaviour | undefined;
  let taken = 0;
  const sockets = new Set<import('node:net').Socket>();
  const forward = async (req: IncomingMessage, body: string): Promise<Upstream> => {
    const headers: Record<string, string> = {};
    for (const h of ['authorization', 'content-type', 'accept']) {
      const v = req.headers[h];
      if (typeof v === 'string') headers[h] = v;
    }
    const r = await fetch(`${upstreamUrl}${req.url ?? '/'}`, {
      method: req.method ?? 'GET',
      headers,
      ...(body === '' ? {} : { body }),
    });
    return { status: r.status, contentType: r.headers.get('content-type') ?? '', text: await r.text() };
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const hreq: HostileRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        body,
        upstream: () => forward(req, body),
      };
      void (async () => {
        try {
          if (behaviour !== undefined && (await behaviour(hreq, res))) {
            taken++;
            return;
          }
          const up = await hreq.upstream();
          res.writeHead(up.status, { 'content-type': up.contentType || 'application/json' }).end(up.text);
        } catch {
          res.destroy();
        }
      })();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get taken() {
      return taken;
    },
    use(b) {
      behaviour = b;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

const json = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

/** Requests whose path (below the base URL) starts with one of these. */
export const pathIs =
  (...prefixes: string[]) =>
  (req: HostileRequest) =>
    prefixes.some((p) => req.path.startsWith(p));

/** A 200 whose chunked body never ends (`[{"id":1},{"id":2},...` until the client hangs up). */
export function endlessBody(match: (r: HostileRequest) => boolean): Behaviour {
  return (req, res) => {
    if (!match(req)) return false;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('[');
    let n = 0;
    const chunk = () =>
      Array.from({ length: 1000 }, () => `{"id":${++n},"name":"${'x'.repeat(40)}"},`).join('');
    const pump = () => {
      while (!res.destroyed && res.write(chunk())) {
        // keep writing while the socket takes it
      }
      if (!res.destroyed) res.once('drain', pump);
    };
    res.on('close', () => res.removeAllListeners('drain'));
    pump();
    return true;
  };
}

/** A 200 whose body comes one byte every `everyMs` and never ends. */
export function trickledBody(match: (r: HostileRequest) => boolean, everyMs = 1000): Behaviour {
  return (req, res) => {
    if (!match(req)) return false;
    res.writeHead(200, { 'content-type': 'application/json' });
    const text = `[${'{"id":1},'.repeat(100_000)}`;
    let i = 0;
    const timer = setInterval(() => {
      if (res.destroyed) clearInterval(timer);
      else res.write(text[i++ % text.length] as string);
    }, everyMs);
    res.on('close', () => clearInterval(timer));
    return true;
  };
}

/** A query page of `count` records (ids rising from the last id asked past), whatever pageSize. */
export function oversizedPage(match: (r: HostileRequest) => boolean, count: number): Behaviour {
  return (req, res) => {
    if (!match(req)) return false;
    const ids = Array.from({ length: count }, (_, k) => 1_000_000 + k);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(`[${ids.map((id) => `{"id":${id}}`).join(',')}]`);
    return true;
  };
}

/** The same body, status 200, for every request matched. */
export function always200(match: (r: HostileRequest) => boolean, body: unknown): Behaviour {
  return (req, res) => {
    if (!match(req)) return false;
    json(res, 200, body);
    return true;
  };
}

/**
 * The sandbox's own answer, with its records changed by `edit` (a list's records, or a single
 * record): wrong types, null ids, and so on.
 */
export function editRecords(
  match: (r: HostileRequest) => boolean,
  edit: (record: Record<string, unknown>, index: number) => Record<string, unknown>,
): Behaviour {
  return async (req, res) => {
    if (!match(req)) return false;
    const up = await req.upstream();
    if (up.status !== 200) {
      res.writeHead(up.status, { 'content-type': 'application/json' }).end(up.text);
      return true;
    }
    const body = JSON.parse(up.text) as unknown;
    const out = Array.isArray(body)
      ? body.map((r, i) => edit(r as Record<string, unknown>, i))
      : edit(body as Record<string, unknown>, 0);
    json(res, 200, out);
    return true;
  };
}

/** The sandbox's answer as text, rewritten by `rewrite` (e.g. an id turned into 2^53 + 1). */
export function rewriteText(
  match: (r: HostileRequest) => boolean,
  rewrite: (text: string) => string,
): Behaviour {
  return async (req, res) => {
    if (!match(req)) return false;
    const up = await req.upstream();
    res.writeHead(up.status, { 'content-type': 'application/json' }).end(rewrite(up.text));
    return true;
  };
}

/**
 * A service answering 200 for every id: the sandbox's answer where it holds the record, and where
 * it answers 404, a 200 with `answer(id)` instead (a bare `{id}`, another id's record, or a
 * made-up one). `made()` counts those answers.
 */
export function anyId(
  match: (r: HostileRequest) => boolean,
  answer: (id: string) => unknown,
): Behaviour & { made(): number } {
  let made = 0;
  const behaviour: Behaviour = async (req, res) => {
    if (!match(req)) return false;
    const up = await req.upstream();
    if (up.status !== 404) {
      res.writeHead(up.status, { 'content-type': up.contentType || 'application/json' }).end(up.text);
      return true;
    }
    made++;
    json(res, 200, answer(/\/([^/?]+)(\?|$)/.exec(req.path)?.[1] ?? ''));
    return true;
  };
  return Object.assign(behaviour, { made: () => made });
}
