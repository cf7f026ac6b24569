/**
 * The sandbox's shared CPU (`cpuMs`, `cpus`): every request in progress takes its share of the
 * same cores (processor sharing, as a server's threads share its CPUs), so a request's time grows
 * with the total work in progress, and a big page slows the small requests beside it. Unlike the
 * FIFO workers (queue.ts) nothing waits in line: everything runs, slower.
 */
export class SharedCpu {
  /** Work in progress: what is left of each, ms of one core. */
  private readonly jobs = new Map<number, { left: number; done: () => void }>();
  private next = 0;
  private at = Date.now();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly cpus: () => number) {}

  /** Requests in progress now. */
  get busy(): number {
    return this.jobs.size;
  }

  /** Resolves once `ms` of one core's work is done, sharing the cores with everything in progress. */
  run(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.advance();
      this.jobs.set(this.next++, { left: ms, done: resolve });
      this.schedule();
    });
  }

  /** Finishes everything at once (the sandbox is closing). */
  drain(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    for (const job of this.jobs.values()) job.done();
    this.jobs.clear();
  }

  /** Each job's share of the cores, per ms of wall time. */
  private share(): number {
    return this.jobs.size === 0 ? 1 : Math.min(1, Math.max(1, this.cpus()) / this.jobs.size);
  }

  /** The work done since the last look, at the share each job had. */
  private advance(): void {
    const now = Date.now();
    const done = (now - this.at) * this.share();
    this.at = now;
    for (const [id, job] of this.jobs) {
      job.left -= done;
      // Within a timer's resolution of done: done.
      if (job.left <= 0.5) {
        this.jobs.delete(id);
        job.done();
      }
    }
  }

  /** A timer for the next job to finish at the present share. */
  private schedule(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.jobs.size === 0) return;
    let least = Number.POSITIVE_INFINITY;
    for (const job of this.jobs.values()) least = Math.min(least, job.left);
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.advance();
        this.schedule();
      },
      Math.max(1, Math.ceil(least / this.share())),
    );
  }
}
