/**
 * The one grammar of an amount of money as text: digits, then optionally one point and one or two
 * decimals, with a leading minus only (the operation's own rule says whether a negative is
 * allowed; a negative zero is no amount). No currency sign, thousands separator, space of any
 * kind, plus sign, exponent, other digits than 0-9 or invisible character: `1,500`, `0 100`,
 * `1e2`, `+12.50`, `12.505`, `12.50 USD`, `0x10`, `-0` are not amounts.
 */
const amountGrammar = /^-?[0-9]+(\.[0-9]{1,2})?$/;
const negativeZero = /^-0+(\.0+)?$/;
export const AMOUNT_RULE =
  'not an amount: digits, an optional point and at most two decimals (1234.50; no currency sign, separator, space or plus sign)';

/**
 * An amount of money (`money: true` fields: amountToPay) read by one strict grammar (above). A
 * number cell (XLSX, JSON) must be exactly a number of cents. What it returns is the value the
 * plan shows and sends; undefined when it is not an amount.
 */
export function parseAmount(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) && Math.round(v * 100) / 100 === v ? v : undefined;
  if (typeof v !== 'string' || !amountGrammar.test(v) || negativeZero.test(v)) return undefined;
  const cents = Math.round(Number(v) * 100);
  return Number.isSafeInteger(cents) ? cents / 100 : undefined;
}
