import { Tokenizer, TokenParser } from '@streamparser/json';
import { preferredListKeys, totalKeys, unwrapList } from './envelope.js';
import { parseJsonKeepingHugeNumbers } from './json-numbers.js';
import { hasUnsafeInteger, unsafeInteger, unsafeIntegerProblem } from './validate-record.js';

/**
 * A list body up to this size is held and parsed whole (JSON.parse, then read as a query's page is:
 * envelope.ts), at a fifth of the streaming parser's CPU; a larger one is parsed as a stream from
 * the byte past this bound on. Memory stays bounded either way: this much text and its records,
 * or a page.
 */
export const WHOLE_LIST_BYTES = 8 * 1024 * 1024;

/**
 * Where the transport pours a successful answer's body, chunk by chunk, instead of reading it
 * whole: a list of any size then costs a page of memory, not the list. `reset()` starts over (a
 * retried attempt resends the list from its first record); `end()` after the last chunk.
 */
export interface BodySink {
  reset(): void;
  write(chunk: Uint8Array): Promise<void>;
  end(): Promise<void>;
}

/** An error of the consumer of a sink (its page handler): never retried as a network error. */
export class SinkConsumerError extends Error {
  constructor(readonly inner: unknown) {
    super(inner instanceof Error ? inner.message : String(inner));
  }
}

/** The body is no list of records, or one JSON would misread (the message says why): a protocol error. */
export class NotAListError extends Error {}

/** A tokenizer that notes the first integer literal beyond 2^53 (which `Number` rounds). */
class CheckedTokenizer extends Tokenizer {
  unsafe: string | undefined;
  protected override parseNumber(text: string): number {
    const n = Number(text);
    if (this.unsafe === undefined && Number.isInteger(n) && !Number.isSafeInteger(n) && /^-?\d+$/.test(text))
      this.unsafe = text;
    return n;
  }
}

/** The package's JSONParser wiring, with the checked tokenizer. */
interface Parser {
  tokenizer: CheckedTokenizer;
  tokens: TokenParser;
}

/**
 * A list response handed on in pages of `pageSize` records. Up to `wholeBytes` it is parsed whole
 * and read as a query's page is (unwrapList). Above, it is parsed as a stream, record by record
 * (@streamparser/json): the list is a bare array, or an object holding it under `key` (pinned, or
 * else the first of the common keys, `data`, `items`, ...), with scalars beside it read for a
 * total and an error member; only the records of the list and the top level's scalars are kept.
 */
export class ListStream implements BodySink {
  private parser: Parser | undefined;
  private page: Record<string, unknown>[] = [];
  private problem: string | undefined;
  /** Scalars at the top of an object envelope (a total, an error member). */
  top: Record<string, unknown> = {};
  /** Records handed on so far in this attempt. */
  count = 0;
  /** How the list came: 'array', or the key that held it. */
  shape: string | undefined;

  /** The body's first chunks, while they may still be the whole of it (up to wholeBytes). */
  private held: Uint8Array[] = [];
  private heldBytes = 0;
  private streaming = false;

  constructor(
    private readonly onPage: (records: Record<string, unknown>[]) => Promise<void>,
    private readonly pageSize: number,
    private readonly key: string | undefined,
    private readonly wholeBytes = WHOLE_LIST_BYTES,
  ) {}

  reset(): void {
    this.held = [];
    this.heldBytes = 0;
    this.streaming = false;
    this.parser = undefined;
    this.page = [];
    this.problem = undefined;
    this.top = {};
    this.count = 0;
    this.shape = undefined;
  }

  async write(chunk: Uint8Array): Promise<void> {
    if (!this.streaming) {
      if (this.heldBytes + chunk.length <= this.wholeBytes) {
        this.held.push(chunk);
        this.heldBytes += chunk.length;
        return;
      }
      this.streaming = true;
      const held = this.held;
      this.held = [];
      this.heldBytes = 0;
      for (const c of held) await this.stream(c);
    }
    await this.stream(chunk);
  }

  private async stream(chunk: Uint8Array): Promise<void> {
    if (this.parser === undefined) {
      const first = firstByte(chunk);
      if (first === undefined) return;
      this.parser = this.open(first);
    }
    this.parser.tokenizer.write(chunk);
    if (this.problem !== undefined) throw new NotAListError(this.problem);
    if (this.page.length >= this.pageSize) await this.flush();
  }

  async end(): Promise<void> {
    if (!this.streaming) return this.whole(Buffer.concat(this.held, this.heldBytes).toString('utf8'));
    if (this.parser === undefined) throw new NotAListError('not a list response: empty body');
    if (!this.parser.tokenizer.isEnded) this.parser.tokenizer.end();
    if (this.problem !== undefined) throw new NotAListError(this.problem);
    if (this.shape === undefined)
      throw new NotAListError('not a list response: no array of records in the object');
    await this.flush();
  }

  /** A body held whole: parsed at once, read as a query's page, handed on page by page. */
  private async whole(text: string): Promise<void> {
    this.held = [];
    this.heldBytes = 0;
    if (text.trim() === '') throw new NotAListError('not a list response: empty body');
    let body: unknown;
    try {
      body = parseJsonKeepingHugeNumbers(text);
    } catch (err) {
      throw new NotAListError(
        `not a list response: unreadable JSON: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    if (hasUnsafeInteger(body)) throw new NotAListError(unsafeIntegerProblem(unsafeInteger(text) ?? '?'));
    const list = unwrapList(body, { key: this.key });
    if (typeof list === 'string') throw new NotAListError(`not a list response: ${list}`);
    this.shape = list.shape;
    if (list.shape !== 'array') {
      for (const [k, v] of Object.entries(body as Record<string, unknown>))
        if (k !== list.shape && (typeof v !== 'object' || v === null)) this.top[k] = v;
    }
    for (let i = 0; i < list.records.length; i += this.pageSize) {
      this.page = list.records.slice(i, i + this.pageSize);
      await this.flush();
    }
  }

  private async flush(): Promise<void> {
    if (this.page.length === 0) return;
    const page = this.page;
    this.page = [];
    this.count += page.length;
    try {
      await this.onPage(page);
    } catch (err) {
      throw new SinkConsumerError(err);
    }
  }

  private open(first: number): Parser {
    if (first === 0x5b /* [ */) {
      this.shape = 'array';
      return this.parser_(['$.*'], (value) => this.add(value));
    }
    if (first !== 0x7b /* { */) {
      this.problem = 'not a list response: expected a JSON array or object';
      return this.parser_([], () => undefined);
    }
    const keys = this.key === undefined ? preferredListKeys : [this.key];
    // The records of the list one by one, and the top level's total and error members; the
    // list's array itself is never asked for whole.
    const scalars = [...totalKeys, 'error', 'errors'];
    const paths = [...keys.map((k) => `$.${k}.*`), ...scalars.map((k) => `$.${k}`)];
    return this.parser_(paths, (value, depth, key) => {
      if (depth === 1) {
        if (typeof key === 'string') this.top[key] = value;
        return;
      }
      this.add(value);
    });
  }

  private parser_(
    paths: string[],
    on: (value: unknown, depth: number, key: string | number | undefined) => void,
  ): Parser {
    const tokenizer = new CheckedTokenizer();
    const tokens = new TokenParser({ paths, keepStack: false });
    tokenizer.onToken = tokens.write.bind(tokens);
    tokenizer.onEnd = () => {
      if (!tokens.isEnded) tokens.end();
    };
    tokens.onError = tokenizer.error.bind(tokenizer);
    tokens.onEnd = () => {
      if (!tokenizer.isEnded) tokenizer.end();
    };
    tokens.onValue = ({ value, key, stack }) => {
      const depth = stack.length;
      if (depth === 2 && this.shape === undefined) {
        const holder = stack[1]?.key;
        this.shape = typeof holder === 'string' ? holder : undefined;
      }
      on(value, depth, key);
      if (tokenizer.unsafe !== undefined) this.problem ??= unsafeIntegerProblem(tokenizer.unsafe);
    };
    tokenizer.onError = (err) => {
      this.problem ??= `not a list response: unreadable JSON: ${err.message}`;
    };
    return { tokenizer, tokens };
  }

  private add(value: unknown): void {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.problem ??= 'not a list response: list holds something other than records';
      return;
    }
    this.page.push(value as Record<string, unknown>);
  }
}

function firstByte(chunk: Uint8Array): number | undefined {
  for (const b of chunk)
    if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09 && b !== 0xef && b !== 0xbb && b !== 0xbf)
      return b;
  return undefined;
}
