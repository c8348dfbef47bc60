/**
 * One event's place among its subject's events in this process. Turns are taken in the order
 * the queue handed the events over (detection order), before any batch awaits anything.
 */
export interface SubjectTurn {
  /** Settles once every earlier turn of the subject has passed. */
  readonly ready: Promise<void>;
  /**
   * The event's deliveries are in the endpoint scheduler's queues, or it has none: the
   * subject's next turn may go. Idempotent.
   */
  pass(): void;
}

/**
 * Keeps a subject's events in detection order on their way to the endpoint scheduler, across
 * the batches a process runs at once. The scheduler starts a subject's deliveries to one
 * endpoint in the order they reach it, but a batch reaches it only after reads of its own
 * (subscriptions, stored events, the endpoint's state), which may finish after those of a
 * batch received later: without turns, a subject's later event could overtake an earlier one
 * whose batch still reads. A turn waits only for earlier events of its own subject.
 * @example const turn = turns.take('customer/c-1'); await turn.ready; scheduler.run(...); turn.pass();
 */
export class SubjectTurns {
  /** Per subject, the promise its next turn waits for (the latest turn's passing). */
  private readonly latest = new Map<string, Promise<void>>();

  /** Takes `subject`'s next turn; it is ready when the turn taken before it has passed. */
  take(subject: string): SubjectTurn {
    const ready = this.latest.get(subject) ?? Promise.resolve();
    let pass!: () => void;
    const passed = new Promise<void>((resolve) => {
      pass = resolve;
    });
    const done = ready.then(() => passed);
    this.latest.set(subject, done);
    void done.then(() => {
      if (this.latest.get(subject) === done) this.latest.delete(subject);
    });
    return { ready, pass };
  }

  /** Subjects with a turn not yet passed (for tests and gauges). */
  get waitingSubjects(): number {
    return this.latest.size;
  }
}
