/** `1,234.50`, `$1,234.50`, `-$7.00`: a thousands separator only between groups of three digits. */
export const grouped = /^-?\d{1,3}(,\d{3})+(\.\d+)?$/;

/** The one grammar of an amount of money, after currency signs and thousands separators. */
const amountGrammar = /^-?(\d+(\.\d{0,2})?|\.\d{1,2})$/;
export const AMOUNT_RULE =
  'not an amount: digits, an optional point and at most two decimals (1234.50; a currency sign and thousands separators are allowed)';

/**
 * An amount of money (`money: true` fields: amountToPay) read by one strict grammar: a leading
 * currency sign ($ € £) and thousands separators (`,` between groups of three digits, spaces)
 * removed first, then digits, an optional point and at most two decimals. `0x10`, `1e2`,
 * `5.000000001` and `Infinity` are not amounts (undefined); a negative one is refused by its rule. A number cell (XLSX, JSON)
 * must be exactly a number of cents. What it returns is the value the plan shows and sends.
 */
export function parseAmount(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) && Math.round(v * 100) / 100 === v ? v : undefined;
  if (typeof v !== 'string') return undefined;
  let t = v
    .trim()
    .replace(/^(-?)(US\$|\$|€|£)\s*/, '$1')
    .replace(/(?<=\d) (?=\d{3}\b)/g, '');
  if (grouped.test(t)) t = t.replace(/,/g, '');
  if (!amountGrammar.test(t)) return undefined;
  const cents = Math.round(Number(t) * 100);
  return Number.isSafeInteger(cents) ? cents / 100 : undefined;
}
