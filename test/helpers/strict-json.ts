/**
 * JSON.parse that rejects what strict log pipelines reject: a duplicate key in an object
 * (JSON.parse keeps the last silently). Used to check the NDJSON log lines.
 */
export function parseStrictJson(text: string): unknown {
  let i = 0;
  const fail = (why: string): never => {
    throw new SyntaxError(`${why} at ${i} in ${text.slice(0, 200)}`);
  };
  const ws = () => {
    while (/\s/.test(text[i] ?? '')) i++;
  };
  const str = (): string => {
    const m = /^"(?:[^"\\]|\\.)*"/.exec(text.slice(i));
    if (m === null) return fail('expected a string');
    i += m[0].length;
    return JSON.parse(m[0]) as string;
  };
  const value = (): unknown => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const out: Record<string, unknown> = {};
      const keys = new Set<string>();
      ws();
      if (text[i] === '}') {
        i++;
        return out;
      }
      for (;;) {
        ws();
        const k = str();
        if (keys.has(k)) fail(`duplicate key "${k}"`);
        keys.add(k);
        ws();
        if (text[i++] !== ':') fail('expected :');
        out[k] = value();
        ws();
        const sep = text[i++];
        if (sep === '}') return out;
        if (sep !== ',') fail('expected , or }');
      }
    }
    if (c === '[') {
      i++;
      const out: unknown[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return out;
      }
      for (;;) {
        out.push(value());
        ws();
        const sep = text[i++];
        if (sep === ']') return out;
        if (sep !== ',') fail('expected , or ]');
      }
    }
    if (c === '"') return str();
    const m = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i));
    if (m === null) return fail('unexpected character');
    i += m[0].length;
    return JSON.parse(m[0]) as unknown;
  };
  const v = value();
  ws();
  if (i !== text.length) fail('trailing text');
  return v;
}
