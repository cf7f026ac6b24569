/** Whole cents as units with two decimals, exactly (no floating point): -123456 -> "-1234.56". */
export function formatCents(cents: number): string {
  const abs = Math.abs(cents);
  const units = Math.trunc(abs / 100);
  const rest = abs - units * 100;
  return `${cents < 0 ? '-' : ''}${units}.${rest < 10 ? '0' : ''}${rest}`;
}
