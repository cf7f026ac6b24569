/** The compliance report's warnings: plain lines, and lines of a kind listed up to a limit. */
export class Collector {
  readonly warnings: string[] = [];
  private readonly limited = new Map<string, string[]>();

  /** Many warnings of one kind are listed up to a limit, then counted. */
  add(kind: string, line: string): void {
    const list = this.limited.get(kind) ?? [];
    list.push(line);
    this.limited.set(kind, list);
  }

  /** Its lines: the plain ones, then `extra` (a report's own, not kept here), then the limited. */
  lines(limit = 100, extra: readonly string[] = []): string[] {
    const out = [...this.warnings, ...extra];
    for (const list of this.limited.values()) {
      out.push(...list.slice(0, limit));
      if (list.length > limit) out.push(`... and ${list.length - limit} more like the above`);
    }
    return out;
  }
}
