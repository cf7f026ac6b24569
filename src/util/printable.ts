/**
 * Text from an input file or from the service made safe for a terminal: control characters (ESC
 * of an escape sequence, carriage returns, bells, C1 controls...) shown escaped, never sent raw;
 * with `max`, cut to that many characters with the number left out said.
 */
export function printable(text: string, max = Number.POSITIVE_INFINITY): string {
  const cut = text.length > max ? text.slice(0, max) : text;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  const shown = cut.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    const code = c.charCodeAt(0);
    return code < 0x100
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  return cut === text ? shown : `${shown}... (${text.length - max} more characters)`;
}
