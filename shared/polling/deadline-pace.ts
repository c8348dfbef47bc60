import type { Clock } from '../clock.ts';

/** A poll's connector requests paced against its invocation's deadline, from {@link deadlinePace}. */
export interface DeadlinePace {
  /** A request is being asked for now (a window's first page, a sweep's ids, a listing). */
  asking(): void;
  /**
   * A page is in hand (handed over to be stored, or judged): the next one is asked for now, if
   * at all. `sentAt` is when its request was sent (see CallResult.sentAt): the time before it,
   * spent waiting for the token's budget or a Retry-After, is not the page's.
   */
  arrived(sentAt?: number): void;
  /** Whether `pages` more pages (default one) asked for now can be in hand before the deadline. */
  nextFits(pages?: number): boolean;
}

/**
 * Paces a poll's page requests against the invocation's deadline. A request still in flight at
 * the deadline is aborted there (abortAtDeadline), and the next invocation asks for the same
 * page again: a connector request spent for nothing at every cut. So a page is asked for only
 * when it can be in hand before the deadline, judging by the longest a page took to be handed
 * over: from its request, or from the page before (a page read ahead is asked for as the one
 * before it arrives, and handed over once that one is processed, so this covers both the request
 * and the processing), but never from before its request was sent. A wait for the budget, or a
 * 429's Retry-After, is not a page's time: counted, one long pause would have every later page
 * judged as long, and the poll stop early. Such a wait that reaches the deadline spends no
 * request (it is aborted before it sends). Without a deadline (the local runtime) every page fits.
 * @example const pace = deadlinePace({ clock, deadline }); pace.asking(); ...; pace.arrived(page.sentAt);
 */
export function deadlinePace(deps: { clock: Clock; deadline?: number | undefined }): DeadlinePace {
  let since = deps.clock.now();
  let longestMs = 0;
  return {
    asking: () => {
      since = deps.clock.now();
    },
    arrived: (sentAt) => {
      const now = deps.clock.now();
      longestMs = Math.max(longestMs, now - Math.max(since, sentAt ?? since));
      since = now;
    },
    nextFits: (pages = 1) =>
      deps.deadline === undefined || deps.clock.now() + pages * longestMs < deps.deadline,
  };
}

/**
 * The pace a poll run goes by: its job's (shared by the job's streams, so the first request of
 * a stream polled late in the job is judged by the pages before it), or one of its own.
 */
export function pollPace(deps: {
  clock: Clock;
  deadline?: number | undefined;
  pace?: DeadlinePace | undefined;
}): DeadlinePace {
  return deps.pace ?? deadlinePace(deps);
}
