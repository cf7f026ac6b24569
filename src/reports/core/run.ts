/**
 * One report run (`ohs report all`, the nightly job, or one report asked alone): what a report
 * builds that another report is built on (compliance's walk of the year, the ageing's figures) is
 * built once per run and handed on typed, never built again by the report that joins it. A key
 * names the inputs the work depends on (the options, the orgs, the instants); equal keys share it.
 */
export class ReportRun {
  private readonly cache = new Map<string, Promise<unknown>>();
  /** How many times each kind of work was done in this run (`compliance-walk`: once per run). */
  readonly built = new Map<string, number>();

  /** The work of `kind` for `key`, made on first use and shared by every later use in the run. */
  once<T>(kind: string, key: unknown, make: () => Promise<T>): Promise<T> {
    const id = `${kind}\u0000${JSON.stringify(key)}`;
    let p = this.cache.get(id) as Promise<T> | undefined;
    if (p === undefined) {
      this.built.set(kind, (this.built.get(kind) ?? 0) + 1);
      p = make();
      this.cache.set(id, p);
    }
    return p;
  }
}
