import { BridgeError, type BridgeErrorOptions } from '../errors.ts';
import type { PublishableEvent } from './publishable-event.ts';

/** Where events go: the name each adapter reports in failures and metrics. */
export type PublishTargetName = 'eventbridge' | 'sqs' | 'local-router' | (string & {});

/** One event that was not published and never will be by repeating the call. */
export interface PublishFailure {
  /** The event's id. */
  eventId: string;
  /** The event's type (e.g. `customer.updated`). */
  eventType: string;
  /** The target that refused it. */
  target: PublishTargetName;
  /** Machine-readable reason: an AWS error code or `EventTooLarge`. */
  code: string;
  /** Human-readable reason. */
  message: string;
}

/** Outcome of {@link EventPublisher.publish}. */
export interface PublishResult {
  /** Events accepted by every target. */
  published: number;
  /** Events accepted only in thin form (without `previous` and `patch`) by some target. */
  thinned: number;
  /**
   * Events refused for good (too large even when thin, malformed): repeating the call
   * cannot help, so they are reported rather than thrown, and other events still go out.
   */
  failures: readonly PublishFailure[];
}

/**
 * The dispatch lane an event takes where a runtime keeps two (the local one): changes found by
 * live polls go before those of a first sync or backfill, which wait in a lane of their own.
 */
export type DispatchLane = 'live' | 'bulk';

/** Options of {@link EventPublisher.publish}. */
export interface PublishOptions {
  /** Who found the events: a live poll (default) or bulk work. Targets with one lane ignore it. */
  lane?: DispatchLane;
  /**
   * The lane the events were published for, when `lane` is another: live changes the bulk lane
   * carries behind their subjects' bulk events (see LaneRoutingPublisher). A dispatch queue
   * marks them, so the dispatcher handles them as live work there (ASKED_LIVE_MEMBER).
   */
  askedLane?: DispatchLane;
  /**
   * Epoch ms (on the publisher's clock) past which retries of refused entries do not wait: the
   * publish throws instead, leaving time to record the failure (a poll invocation's deadline).
   * Default: the attempts alone bound them.
   */
  deadline?: number | undefined;
}

/**
 * The publisher port. `publish` returns once every event is accepted by its target(s) or
 * refused for good (see {@link PublishResult.failures}). When it cannot finish (throttling
 * or service faults outlasting the bounded retries, a network failure) it throws a
 * {@link PublishError}: the caller must then not commit its snapshots or watermark
 * (publish first, commit after). Repeating a call republishes events with the same ids.
 */
export interface EventPublisher {
  publish(events: readonly PublishableEvent[], options?: PublishOptions): Promise<PublishResult>;
}

/** A publish that could not complete. `retryable` says whether a later attempt may succeed. */
export class PublishError extends BridgeError {
  override name = 'PublishError';
  /** The target that failed. */
  readonly target: PublishTargetName;

  constructor(target: PublishTargetName, message: string, options: BridgeErrorOptions = {}) {
    super(`${target}: ${message}`, options);
    this.target = target;
  }
}

/** The result of publishing nothing. */
export const EMPTY_PUBLISH_RESULT: PublishResult = { published: 0, thinned: 0, failures: [] };
