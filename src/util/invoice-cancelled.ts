/**
 * An invoice's `dropInvoice` read as cancelled: every value but blank or an explicit no (`false`,
 * `0`, `no`). The interface says the field "indicates whether the invoice was cancelled" without a
 * type; a service may fill it with a document's address, `true`, or `1`. One reading for the
 * reports (a cancelled invoice is in no A/R bucket) and the write-back (a payment on a cancelled
 * invoice is flagged when planned and held when sent).
 */
export function isCancelled(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0) return false;
  const text = String(value).trim().toLowerCase();
  return text !== '' && text !== 'false' && text !== '0' && text !== 'no';
}
