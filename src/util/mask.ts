/**
 * Masking of personal data (SSN, birth dates, licence and ID numbers) before a record reaches the
 * mirror, in its columns and in `raw` alike, so the file never holds them unless the
 * configuration opts in (`mirror.storeSensitive`). It fails closed:
 * - every value of a field the schema marks `sensitive: true` is masked whatever its JSON type
 *   (a number, an object or an array is turned into its JSON text first, then masked);
 * - a field the schema does not name, at any depth, is masked when its name looks like personal
 *   data (`looksSensitive`: ssn, socialSecurity, dob, birth, licence/license, passport, ...).
 * Dates keep their year; other values keep their last four letters or digits. `null` stays null.
 */
export function maskValue(field: string, value: unknown): unknown {
  if (value === null || value === undefined || value === '') return value;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (/date|birth|dob/i.test(field)) {
    const year = /^(\d{4})/.exec(text)?.[1] ?? /(\d{4})$/.exec(text)?.[1];
    return year === undefined ? '****' : `${year}-**-**`;
  }
  const tail = text.replace(/[^A-Za-z0-9]/g, '').slice(-4);
  return `***${tail}`;
}

/**
 * Whether a field name looks like personal data: matched on its words (camelCase, `_`, `-`, `~`
 * and `.` split), so `ssn`, `o_ssn`, `socialSecurityNumber`, `dob`, `id_birthdate`, `birthDate`,
 * `driverLicenseNo`, `licenceNumber`, `passportNo`, `nationalId`, `taxId` match and `adobe` does not.
 */
export function looksSensitive(field: string): boolean {
  let known = verdicts.get(field);
  if (known === undefined) {
    known = judge(field);
    // Field names repeat in every record: judged once each (bounded: names, not values).
    if (verdicts.size < 10_000) verdicts.set(field, known);
  }
  return known;
}
const verdicts = new Map<string, boolean>();

function judge(field: string): boolean {
  const words = field
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
  const joined = words.join('');
  return (
    words.some((w) => SENSITIVE_WORDS.has(w) || /^(birth|licen[cs]e|passport)/.test(w)) ||
    /socialsecurity|dateofbirth|nationalid|taxid|birthdate/.test(joined)
  );
}
const SENSITIVE_WORDS = new Set(['ssn', 'ssns', 'sin', 'dob', 'tin', 'itin', 'nin']);

/**
 * A JSON value with every field whose name looks sensitive masked, at any depth: a copy where
 * something was masked, the value itself where nothing was.
 */
export function maskByName(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let items: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const masked = maskByName(value[i]);
      if (masked === value[i]) continue;
      items ??= [...value];
      items[i] = masked;
    }
    return items ?? value;
  }
  let out: Record<string, unknown> | undefined;
  for (const k in value) {
    const v = (value as Record<string, unknown>)[k];
    const masked = looksSensitive(k) ? maskValue(k, v) : maskByName(v);
    if (masked === v) continue;
    out ??= { ...(value as Record<string, unknown>) };
    out[k] = masked;
  }
  return out ?? value;
}

/**
 * Secrets of this process (the bearer token) that no text leaving it may hold: remembered where
 * they are read (createClient), masked by `maskText` and `describeError` wherever they appear.
 */
const secrets = new Set<string>();

/** Remembers a secret (the token) for every later `maskText`; short values are not (they would shred text). */
export function rememberSecret(secret: string): void {
  if (secret.length >= 4) secrets.add(secret);
}

/** What `maskText` masks besides the process's secrets, credentials and URL passwords. */
export interface TextMasking {
  /**
   * The request the text answers (a write's body): every value it carried, whatever its field's
   * name, is masked where the text quotes it: as is, as JSON escapes it, and in any letter case,
   * with or without accents, or with other separators between its letters and digits
   * (`ZEBULON QUARTZ`, `D-1234-567`, `JOSÉ` or `JOSE` for `José`).
   */
  carried?: unknown;
  /**
   * Text from the service, read by an allow-list: the text is first decoded as a person would
   * read it (HTML character references, percent-encoding, `\uXXXX` escapes, fullwidth forms,
   * accents), then every token holding a digit of any script (`1961`, `4th`, `'61`, `7月4日`,
   * `٩٨٧`, `D1234567`, `03 02 1971` as one) becomes `[number]`, whatever was sent. What is kept:
   * words without digits, punctuation, and the ids of the records the request named. A service
   * that rewords what it refuses, in any locale's spelling, quotes no digit of a personal value.
   */
  shapes?: boolean;
}

// A credential after its scheme: 8 characters or more, so prose ("invalid bearer token") stays.
const AUTH_VALUE = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=:-]{8,}/gi;
const AUTH_HEADER = /\b(authorization|x-api-key|api[-_]?key)("?\s*[:=]\s*"?)(?!(Bearer|Basic)\s)[^\s",;}]+/gi;
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/:@]*):[^\s/@]*@/gi;

/**
 * A token holding a digit of any script: letters, digits and marks, joined by `.`, `-`, `/`, `'`
 * or `:`; or digit groups joined by spaces or commas (`03 02 1971`, `987 65 4321`). It starts only
 * where a run of letters and digits starts (tried at every position of a long run without a
 * digit, a 200 KB error of one word, it rescanned the run from each: quadratic), and never inside
 * a held mask's marker.
 */
const NUMBER_TOKEN =
  /(?<![\p{L}\p{N}\p{M}\uE000])(?:[\p{L}\p{M}\p{N}]*\p{N}[\p{L}\p{M}\p{N}]*(?:[./:'’-][\p{L}\p{M}\p{N}]+)*|\p{N}+(?:[ ,]+\p{N}+)+)/gu;

/** HTML character references: numeric (`&#57;`, `&#x39;`) and the named ones a service escapes with. */
const NAMED_REFS: Record<string, string> = { amp: '&', apos: "'", quot: '"', lt: '<', gt: '>', nbsp: ' ' };

/**
 * The text as a person reads it: HTML character references, percent-encoding and `\uXXXX`
 * escapes decoded (twice over at most: `&amp;#57;`), then compatibility forms folded (fullwidth
 * `９` is `9`) and accents dropped (`JOSÉ` is `JOSE`), so no spelling hides a value from the masks.
 */
function readable(text: string): string {
  let out = text;
  for (let round = 0; round < 3; round++) {
    const before = out;
    out = out
      .replace(/&#(\d{1,7});?|&#x([0-9a-f]{1,6});?/gi, (m, dec?: string, hex?: string) => {
        const cp = dec !== undefined ? Number(dec) : Number.parseInt(hex ?? '', 16);
        return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
      })
      .replace(/&(amp|apos|quot|lt|gt|nbsp);/gi, (m, name: string) => NAMED_REFS[name.toLowerCase()] ?? m)
      .replace(/\\u([0-9a-f]{4})/gi, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
      .replace(/(?:%[0-9a-f]{2})+/gi, (m) => {
        try {
          return decodeURIComponent(m);
        } catch {
          return m.replace(/%([0-9a-f]{2})/gi, (_x, h: string) =>
            String.fromCharCode(Number.parseInt(h, 16)),
          );
        }
      });
    if (out === before) break;
  }
  return out.normalize('NFKD').replace(/\p{M}/gu, '');
}

/** Private-use brackets around a masked carried value while the shapes are removed (so `***4321` stays). */
const HOLD_OPEN = '\uE000';
const HOLD_CLOSE = '\uE001';

/** A pattern finding `value` in any letter case, with up to three other characters between its letters and digits. */
function loosePattern(value: string): RegExp | undefined {
  const chars = readable(value).replace(/[^A-Za-z0-9]/g, '');
  if (chars.length < 4 || value.length > 200) return undefined;
  return new RegExp(`(?<![A-Za-z0-9])${[...chars].join('[^A-Za-z0-9]{0,3}')}(?![A-Za-z0-9])`, 'gi');
}

/** Every carried value masked where the text quotes it, in any form; the masks held aside by `held`. */
function maskCarried(text: string, carried: unknown, held: string[]): string {
  const values: [string, string][] = [];
  collectLeaves('', carried, values);
  // Longest first, so a value holding a shorter one is masked whole.
  values.sort((a, b) => b[1].length - a[1].length);
  const hold = (masked: string) => {
    held.push(masked);
    return `${HOLD_OPEN}${held.length - 1}${HOLD_CLOSE}`;
  };
  let out = text;
  for (const [field, value] of values) {
    const masked = String(maskValue(field, value));
    for (const form of new Set([value, JSON.stringify(value).slice(1, -1)]))
      if (out.includes(form)) out = out.split(form).join(hold(masked));
    const loose = loosePattern(value);
    if (loose !== undefined) out = out.replace(loose, () => hold(masked));
  }
  return out;
}

/** A mask this gate made before (`***4321`, `1979-**-**`): text masked twice stays as masked once. */
const alreadyMasked = (text: string, at: number, length: number) =>
  text.slice(Math.max(0, at - 3), at) === '***' || text.startsWith('-**-**', at + length);

/** Every token holding a digit, but the ids in `kept` and the masks this gate made before. */
function maskShapes(text: string, kept: Set<string>): string {
  return text.replace(NUMBER_TOKEN, (m, at: number, whole: string) =>
    kept.has(m) || alreadyMasked(whole, at, m.length) ? m : '[number]',
  );
}

/**
 * Free text (a service's error message, a refusal reason, anything thrown) made fit to print, log
 * or store: the process's secrets and any `Authorization`/`Bearer` value become `[secret]`, a
 * URL's password `***`; with `carried`, every value of the request the text answers is masked as
 * the record's field would be (`***6789`, `1980-**-**`), in any case or spacing; with `shapes`,
 * the text is decoded and every token holding a digit masked (see `TextMasking`). Field names and
 * words stay: the text stays readable.
 */
export function maskText(text: string, masking: TextMasking = {}): string {
  // Service text is read as a person reads it before anything is looked for in it.
  let out = masking.shapes === true ? readable(text) : text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join('[secret]');
  out = out
    .replace(AUTH_VALUE, (_m, scheme: string) => `${scheme} [secret]`)
    .replace(AUTH_HEADER, (_m, name: string, sep: string) => `${name}${sep}[secret]`)
    .replace(URL_PASSWORD, (_m, user: string) => `${user}:***@`);
  const held: string[] = [];
  if (masking.carried !== undefined) out = maskCarried(out, masking.carried, held);
  if (masking.shapes === true) out = maskShapes(out, recordIds(masking.carried));
  if (held.length > 0)
    out = out.replace(
      new RegExp(`${HOLD_OPEN}(\\d+)${HOLD_CLOSE}`, 'g'),
      (m, n: string) => held[Number(n)] ?? m,
    );
  return out;
}

/** The ids of records a request names (`InvoiceId`, `OrgId`): no personal data, and what a refusal is about. */
function recordIds(value: unknown, field = '', into = new Set<string>()): Set<string> {
  if (typeof value === 'number' && isRecordId(field)) into.add(String(value));
  else if (typeof value === 'string' && isRecordId(field) && /^\d+$/.test(value)) into.add(value);
  else if (Array.isArray(value)) for (const v of value) recordIds(v, field, into);
  else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) recordIds(v, k, into);
  return into;
}

const isRecordId = (field: string) => /(^|[a-z_])(id|Id|ID)$/.test(field) && !looksSensitive(field);

/**
 * The keys of a query body whose values are its structure, not data: the field names a filter,
 * a sort or `return` names, an operator, a link operator, a direction. A service quoting them
 * (`unknown field 'nope'`) tells what was wrong, and they hold nothing of a person; the filter's
 * `value` and simple filters' values stay masked.
 */
const STRUCTURAL_KEYS = new Set([
  'columnField',
  'operatorValue',
  'linkOperator',
  'sortBy',
  'sortDirection',
  'return',
]);

/** A structural key's value shaped as a name (a field, an operator): never a number or free text. */
function structural(field: string, value: string): boolean {
  return STRUCTURAL_KEYS.has(field) && /^[A-Za-z_][A-Za-z0-9_.~]*$/.test(value);
}

/**
 * The leaves of a request body worth finding in text: strings of 4 characters or more, and
 * numbers of 6 digits or more (an SSN sent as a number) but a record's id. Shorter ones (an amount of 5, `true`)
 * would mask every digit of the text and tell nobody anything.
 */
function collectLeaves(field: string, value: unknown, into: [string, string][]): void {
  if (typeof value === 'string') {
    if (value.length >= 4 && !structural(field, value)) into.push([field, value]);
  } else if (typeof value === 'number' || typeof value === 'bigint') {
    // A record's id (invoiceId) names what was refused and is no personal data: kept.
    if (isRecordId(field)) return;
    const text = String(value);
    if (text.replace(/\D/g, '').length >= 6) into.push([field, text]);
  } else if (Array.isArray(value)) {
    for (const v of value) collectLeaves(field, v, into);
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) collectLeaves(k, v, into);
  }
}
