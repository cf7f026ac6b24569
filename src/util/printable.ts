/**
 * Control characters (C0 but tab, LF and CR; DEL; C1 such as 0x9B) and the bidirectional
 * controls (U+202A-202E embeddings and overrides, U+2066-2069 isolates, the LRM, RLM and ALM
 * marks) that would make a page show other text than it holds, or reorder what a person reads.
 */
const INVISIBLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Text with every control and bidirectional control character removed (HTML text, charts included). */
export function visibleText(text: string): string {
  return text.replace(INVISIBLE, '');
}

/**
 * Text from an input file or from the service made safe for a terminal: control characters (ESC
 * of an escape sequence, carriage returns, bells, C1 controls, bidirectional overrides and
 * isolates that reorder what a person reads...) shown escaped, never sent raw;
 * with `max`, cut to that many characters with the number left out said.
 */
export function printable(text: string, max = Number.POSITIVE_INFINITY): string {
  const cut = text.length > max ? text.slice(0, max) : text;
  const shown = cut.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => {
      if (c === '\n') return '\\n';
      if (c === '\r') return '\\r';
      if (c === '\t') return '\\t';
      const code = c.charCodeAt(0);
      return code < 0x100
        ? `\\x${code.toString(16).padStart(2, '0')}`
        : `\\u${code.toString(16).padStart(4, '0')}`;
    },
  );
  return cut === text ? shown : `${shown}... (${text.length - max} more characters)`;
}
