import type { IncomingMessage } from 'node:http';

/** An error the sandbox answers with: `{"error":{"status","code","message"}}` and the status. */
export class SimHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new SimHttpError(400, 'INVALID_REQUEST', message);
export const notFound = (message: string) => new SimHttpError(404, 'NOT_FOUND', message);

/** A refusal quoting the request's body and Authorization header (`quoteRefusals`), as some services do. */
export const quotedRefusal = (raw: Buffer, authorization: string | undefined) =>
  badRequest(`rejected ${raw.toString('utf8')} auth=${authorization ?? ''}`);

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** How a service paraphrasing a value might quote it: dates in other notations, SSNs regrouped, text in upper case. */
export function rewordings(value: unknown): string[] {
  if (typeof value === 'number') return [String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',')];
  if (typeof value !== 'string' || value.length < 4) return [];
  const date = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
  if (date !== null) {
    const [, y = '', m = '', d = ''] = date;
    const month = MONTHS[Number(m) - 1] ?? 'January';
    return [
      `${month} ${Number(d)}, ${y}`,
      `${d}-${month.slice(0, 3).toUpperCase()}-${y.slice(2)}`,
      `${m}/${d}/${y.slice(2)}`,
      `${Number(d)} ${month.slice(0, 3)} ${y}`,
    ];
  }
  const digits = value.replace(/\D/g, '');
  if (/^\d{3}-?\d{2}-?\d{4}$/.test(value))
    return [
      `${digits.slice(0, 3)}.${digits.slice(3, 5)}.${digits.slice(5)}`,
      `${digits.slice(0, 3)}-${digits.slice(3)}`,
    ];
  return [value.toUpperCase()];
}

/**
 * A refusal quoting every value of the request reworded (`rewordErrors`): a birth date as
 * `July 4, 1961`, `04-JUL-61`, `07/04/61` and `4 Jul 1961`, an SSN as `987.65.4321` and
 * `987-654321`, other text in upper case, as services that paraphrase what they refuse do.
 */
export function rewordedRefusal(body: unknown): SimHttpError {
  const parts: string[] = [];
  const walk = (field: string, v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) walk(field, x);
    else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) walk(k, x);
    else {
      const forms = rewordings(v);
      if (forms.length > 0) parts.push(`${field} ${forms.join(' or ')}`);
    }
  };
  walk('', body);
  return badRequest(`could not accept the record: ${parts.join('; ')}`);
}

/** A request body parsed as JSON (undefined when empty); 415 without a JSON type where one is needed. */
export function parseJsonBody(raw: Buffer, req: IncomingMessage, needsJsonType: boolean): unknown {
  if (raw.length === 0) return undefined;
  const type = req.headers['content-type'] ?? '';
  if (needsJsonType && !/^application\/json\b/i.test(type)) {
    throw new SimHttpError(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      'request body needs Content-Type: application/json',
    );
  }
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw badRequest('body: not valid JSON');
  }
}

const MONTHS_FR = [
  'janvier',
  'février',
  'mars',
  'avril',
  'mai',
  'juin',
  'juillet',
  'août',
  'septembre',
  'octobre',
  'novembre',
  'décembre',
];
const MONTHS_DE = [
  'Januar',
  'Februar',
  'März',
  'April',
  'Mai',
  'Juni',
  'Juli',
  'August',
  'September',
  'Oktober',
  'November',
  'Dezember',
];
const MONTHS_ES = [
  'enero',
  'febrero',
  'marzo',
  'abril',
  'mayo',
  'junio',
  'julio',
  'agosto',
  'septiembre',
  'octubre',
  'noviembre',
  'diciembre',
];
const ORDINAL = (d: number) =>
  d % 10 === 1 && d !== 11 ? 'st' : d % 10 === 2 && d !== 12 ? 'nd' : d % 10 === 3 && d !== 13 ? 'rd' : 'th';

/** Digits in another script: fullwidth (U+FF10) or Arabic-Indic (U+0660); other characters kept. */
const inScript = (text: string, zero: number) =>
  text
    .replace(/\d/g, (d) => String.fromCodePoint(zero + Number(d)))
    .replace(/-/g, zero === 0xff10 ? '\u2212' : '-');
/** Every character as an HTML character reference, decimal or hexadecimal. */
const references = (text: string, hex: boolean) =>
  [...text].map((c) => (hex ? `&#x${c.codePointAt(0)?.toString(16)};` : `&#${c.codePointAt(0)};`)).join('');
/** Percent-encoding as a URL carries it, the apostrophe too (`O%27Quill`, `Coeur%20d%27Alene`). */
const percent = (text: string) => encodeURIComponent(text).replace(/'/g, '%27');

/**
 * How services in other locales quote a value (`localeRefusals`): a date as French, German,
 * Spanish, Japanese and American English spell it (`4 juillet 1961`, `4. Juli 1961`, `4 de julio
 * de 1961`, `1961年7月4日`, `Jul 4th, '61`) and as `04 07 1961`; an SSN in fullwidth and
 * Arabic-Indic digits and as HTML character references; other text percent-encoded, as character
 * references and in upper case (`JOSÉ`).
 */
export function localeSpellings(value: unknown): string[] {
  if (typeof value !== 'string' || value.length < 4) return [];
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (date !== null) {
    const [, y = '', m = '', d = ''] = date;
    const mi = Number(m) - 1;
    const day = Number(d);
    return [
      `${day} ${MONTHS_FR[mi]} ${y}`,
      `${day}. ${MONTHS_DE[mi]} ${y}`,
      `${day} de ${MONTHS_ES[mi]} de ${y}`,
      `${y}年${mi + 1}月${day}日`,
      `${MONTHS[mi]?.slice(0, 3)} ${day}${ORDINAL(day)}, '${y.slice(2)}`,
      `${d} ${m} ${y}`,
    ];
  }
  if (/^\d{3}-?\d{2}-?\d{4}$/.test(value))
    return [
      inScript(value, 0xff10),
      inScript(value, 0x0660),
      references(value, false),
      references(value, true),
    ];
  return [percent(value), references(value, false), value.toUpperCase()];
}

/** A refusal quoting every value of the request in other locales' spellings (`localeRefusals`). */
export function localeRefusal(body: unknown): SimHttpError {
  const parts: string[] = [];
  const walk = (field: string, v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) walk(field, x);
    else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) walk(k, x);
    else {
      const forms = localeSpellings(v);
      if (forms.length > 0) parts.push(`${field} « ${forms.join(' » / « ')} »`);
    }
  };
  walk('', body);
  return new SimHttpError(
    422,
    'VALIDATION_FAILED',
    `valeur refusée / Wert abgelehnt / 拒否: ${parts.join('; ')}`,
  );
}
