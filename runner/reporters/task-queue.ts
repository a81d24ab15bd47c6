// Background work in a bounded number of lanes (the `--report-to` uploads): tasks start in the order added,
// `concurrency` at a time, and the end of a run can wait until none is left.

export class TaskQueue {
  private readonly waiting: (() => Promise<void>)[] = [];
  private running = 0;
  private drained: (() => void)[] = [];

  constructor(private readonly concurrency: number) {}

  get pending(): number {
    return this.waiting.length + this.running;
  }

  add(task: () => Promise<void>): void {
    this.waiting.push(task);
    this.next();
  }

  /** Resolves once every task has settled. */
  idle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }

  private next(): void {
    while (this.running < this.concurrency && this.waiting.length) {
      const task = this.waiting.shift()!;
      this.running++;
      void task()
        .catch(() => undefined) // each task says its own failures
        .finally(() => {
          this.running--;
          this.next();
          if (this.pending === 0) this.drained.splice(0).forEach((done) => done());
        });
    }
  }
}
