import { visibleText } from '../../util/printable.js';

/**
 * Text from the service (an org named `<img src=x onerror=…>`) goes into the page as text: every
 * value and every attribute passes through here. `&` first, then the characters that open a tag
 * or close an attribute.
 */
export function esc(value: unknown): string {
  return visibleText(String(value ?? ''))
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Money in whole cents as the CSV writes it (12345 -> "123.45"), with thousands separators. */
export function groupDigits(text: string): string {
  const m = /^(-?)(\d+)(\.\d+)?$/.exec(text);
  if (m === null) return text;
  return `${m[1]}${(m[2] ?? '').replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${m[3] ?? ''}`;
}
