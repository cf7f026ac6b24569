/**
 * A kind of work a run shares, typed by what it makes: `productKey<ComplianceFigures>
 * ('compliance-walk')`. A report that builds a product others are built on declares its key
 * once, beside the function that builds it; `run.product(KEY, inputs, make)` then hands every
 * reader the same value, typed `T`, without a cast and without a string two places must spell
 * alike.
 */
export class ProductKey<T> {
  /** Ties the key to what it makes (a type only: nothing is stored). */
  declare private readonly made: (value: T) => T;
  /** Its name in `ReportRun.built` and the debug log (`compliance-walk`); one key per name. */
  readonly kind: string;

  constructor(kind: string) {
    this.kind = kind;
  }
}

/** The key of a product of type `T`, named `kind` (one key per kind: a second is refused when used). */
export function productKey<T>(kind: string): ProductKey<T> {
  return new ProductKey<T>(kind);
}

/**
 * One report run (`ohs report all`, the nightly job, or one report asked alone): what a report
 * builds that another report is built on (compliance's walk of the year, the ageing's figures) is
 * built once per run and handed on typed, never built again by the report that joins it. The
 * inputs name what the work depends on (the options, the orgs, the instants); equal inputs share it.
 */
export class ReportRun {
  private readonly cache = new Map<string, Promise<unknown>>();
  /** The key of each kind used in this run: a second key of the same name is a mistake. */
  private readonly keys = new Map<string, object>();
  /** How many times each kind of work was done in this run (`compliance-walk`: once per run). */
  readonly built = new Map<string, number>();

  /** The product of `key` for `inputs`, made on first use and shared by every later use in the run. */
  product<T>(key: ProductKey<T>, inputs: unknown, make: () => Promise<T>): Promise<T> {
    const known = this.keys.get(key.kind);
    if (known === undefined) this.keys.set(key.kind, key);
    else if (known !== key) throw new Error(`two product keys named ${key.kind}: one key per kind`);
    const id = `${key.kind}\u0000${JSON.stringify(inputs)}`;
    let p = this.cache.get(id) as Promise<T> | undefined;
    if (p === undefined) {
      this.counted(key);
      p = make();
      this.cache.set(id, p);
    }
    return p;
  }

  /** Counts one more build of `key`'s kind of work (a product that makes a second of itself). */
  counted<T>(key: ProductKey<T>): void {
    this.built.set(key.kind, (this.built.get(key.kind) ?? 0) + 1);
  }
}
