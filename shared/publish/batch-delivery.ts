import type { Clock, RandomSource } from '../clock.ts';
import { forEachConcurrently } from '../concurrency.ts';
import { type PreparedEntry, packBatches } from './batch-packing.ts';
import type { PublishMetrics } from './publish-metrics.ts';
import type { PublishableEvent } from './publishable-event.ts';
import { PublishError, type PublishFailure, type PublishTargetName } from './publisher.ts';
import { backoffDelayMs, type RetryOptions } from './retry-backoff.ts';

/**
 * The `reason`s of events left unpublished by a publish that threw: the caller (a poll job, a
 * fan-out) fails and its work is repeated, so these events are published later. Every other
 * reason is a refusal for good (EventTooLarge, MalformedDetail, ...): that event never is.
 */
export const UNFINISHED_PUBLISH_REASONS = ['RetriesExhausted', 'RequestFailed'] as const;

/** Why a target refused one entry of a batch. */
export interface EntryRefusal {
  code: string;
  message: string;
  /** True when the same entry may be accepted later (throttling, internal failure). */
  retryable: boolean;
  /**
   * A retryable refusal whose code the target does not document: retried as the transient
   * ones are, but still refused when the attempts run out (and only such refusals are left),
   * it is reported as a failure of its event instead of thrown. Thrown, the caller would repeat
   * its work, and a code that never passes would fail it at every repetition, for ever.
   */
  undocumented?: boolean;
}

/**
 * Sends one batch; resolves with the refusals keyed by position in `entries` (absent:
 * accepted). Throws when the whole request failed.
 */
export type SendBatch<E> = (entries: readonly E[]) => Promise<ReadonlyMap<number, EntryRefusal>>;

/** Limits and dependencies of {@link deliverInBatches}. */
export interface BatchDeliveryOptions<E> {
  target: PublishTargetName;
  /** Most entries in one request (10 for PutEvents and SendMessageBatch). */
  maxEntries: number;
  /** Most bytes in one request, by the target's size formula. */
  maxBytes: number;
  /** Requests in flight at once within one layer. */
  concurrency: number;
  send: SendBatch<E>;
  clock: Clock;
  random: RandomSource;
  retry: RetryOptions;
  metrics: PublishMetrics;
  /**
   * Epoch ms on `clock` past which no retry waits (a poll invocation's deadline): a backoff
   * that would end after it is not begun, and the publish throws as when the attempts run out.
   */
  deadline?: number | undefined;
}

/** What {@link deliverInBatches} achieved. */
export interface DeliveryOutcome {
  delivered: PreparedEntry<unknown>[];
  failures: PublishFailure[];
}

/**
 * Sends prepared entries in batches, layer by layer, retrying only the entries refused for
 * a transient reason (and those of a request throttled whole), with jittered backoff, up to
 * `retry.maxAttempts` attempts and never waiting past `deadline`.
 * Entries refused for good become failures, and so do those refused with an undocumented code
 * ({@link EntryRefusal.undocumented}) when only they outlast the attempts. Throws a retryable
 * {@link PublishError} when other transient refusals outlast the attempts (or the deadline
 * comes first), and a {@link PublishError} classified from the cause when a whole request
 * fails otherwise; entries accepted before that stay published.
 */
export async function deliverInBatches<E>(
  prepared: readonly PreparedEntry<E>[],
  options: BatchDeliveryOptions<E>,
): Promise<DeliveryOutcome> {
  const delivered: PreparedEntry<E>[] = [];
  const failures: PublishFailure[] = [];
  let unfinishedReason: (typeof UNFINISHED_PUBLISH_REASONS)[number] | undefined;
  try {
    for (const layer of splitLayers(prepared)) {
      let pending = layer;
      for (let attempt = 1; pending.length > 0; attempt++) {
        const again = await sendOnce(pending, options, delivered, failures);
        if (again.length === 0) break;
        const delay =
          attempt < options.retry.maxAttempts
            ? backoffDelayMs(attempt, options.random, options.retry)
            : undefined;
        const late =
          delay !== undefined &&
          options.deadline !== undefined &&
          options.clock.now() + delay > options.deadline;
        if (delay === undefined && again.every((item) => item.refusal.undocumented)) {
          for (const { entry, refusal } of again) {
            failures.push(failureOf(entry.event, options.target, givenUp(refusal, attempt)));
          }
          break;
        }
        if (delay === undefined || late) {
          const last = again[again.length - 1]!.refusal;
          unfinishedReason = 'RetriesExhausted';
          const until = late ? ', the next one would come after the deadline' : '';
          throw new PublishError(
            options.target,
            `${again.length} event(s) still refused after ${attempt} attempts${until} (${last.code}: ${last.message})`,
            { retryable: true },
          );
        }
        options.metrics.recordRetried(options.target, again.length);
        await options.clock.sleep(delay);
        // Retries go out in the original order, whatever order the parallel batches ended in.
        const retried = new Set(again.map((item) => item.entry));
        pending = layer.filter((item) => retried.has(item));
      }
    }
  } catch (error) {
    unfinishedReason ??= 'RequestFailed';
    throw error;
  } finally {
    recordOutcome(options, prepared, delivered, failures, unfinishedReason);
  }
  return { delivered, failures };
}

interface Refused<E> {
  entry: PreparedEntry<E>;
  refusal: EntryRefusal;
}

async function sendOnce<E>(
  pending: readonly PreparedEntry<E>[],
  options: BatchDeliveryOptions<E>,
  delivered: PreparedEntry<E>[],
  failures: PublishFailure[],
): Promise<Refused<E>[]> {
  const again: Refused<E>[] = [];
  const batches = packBatches(pending, options.maxEntries, options.maxBytes);
  await forEachConcurrently(batches, options.concurrency, async (batch) => {
    const bytes = batch.reduce((sum, item) => sum + item.bytes, 0);
    options.metrics.recordBatch(options.target, batch.length, bytes);
    let refusals: ReadonlyMap<number, EntryRefusal>;
    try {
      refusals = await options.send(batch.map((item) => item.entry));
    } catch (error) {
      // A throttled request is a refusal of each of its entries for now: sent again like them.
      const throttled = throttlingRefusal(error);
      if (!throttled) throw requestError(options.target, error);
      for (const item of batch) again.push({ entry: item, refusal: throttled });
      return;
    }
    batch.forEach((item, index) => {
      const refusal = refusals.get(index);
      if (!refusal) delivered.push(item);
      else if (refusal.retryable) again.push({ entry: item, refusal });
      else failures.push(failureOf(item.event, options.target, refusal));
    });
  });
  return again;
}

function failureOf(
  event: PublishableEvent,
  target: PublishTargetName,
  refusal: EntryRefusal,
): PublishFailure {
  return {
    eventId: event.id,
    eventType: event.type,
    target,
    code: refusal.code,
    message: refusal.message,
  };
}

/** An undocumented refusal as reported once `attempts` attempts met it. */
function givenUp(refusal: EntryRefusal, attempts: number): EntryRefusal {
  return {
    ...refusal,
    message: `${refusal.message} (an undocumented code, still refused after ${attempts} attempts)`,
  };
}

function splitLayers<E>(prepared: readonly PreparedEntry<E>[]): PreparedEntry<E>[][] {
  const layers: PreparedEntry<E>[][] = [];
  for (const item of prepared) {
    const layer = layers[item.layer] ?? [];
    layer.push(item);
    layers[item.layer] = layer;
  }
  return layers.filter((layer) => layer.length > 0);
}

/**
 * Names of whole-request errors that pass if sent again later, though AWS models them as
 * client faults (HTTP 400): EventBridge's `ThrottlingException` over the account's PutEvents
 * rate, SQS's `RequestThrottled` and KMS throttling of an encrypted queue.
 */
const THROTTLING_ERROR_NAMES = new Set([
  'ThrottlingException',
  'Throttling',
  'TooManyRequestsException',
  'RequestThrottled',
  'RequestThrottledException',
  'KmsThrottled',
  'KMS.ThrottlingException',
]);

/**
 * The refusal a whole request's throttling error stands for ({@link THROTTLING_ERROR_NAMES},
 * an HTTP 429, or an error the SDK marks as throttling), or undefined for any other failure.
 * The SDK's own retries do not cover `KmsThrottled`, and give the others three attempts at
 * most, fewer once its retry quota is spent: the entries then take the publisher's retries.
 */
function throttlingRefusal(error: unknown): EntryRefusal | undefined {
  if (!(error instanceof Error) || error instanceof PublishError) return undefined;
  const sdk = error as {
    $metadata?: { httpStatusCode?: number };
    $retryable?: { throttling?: boolean };
  };
  const throttled =
    THROTTLING_ERROR_NAMES.has(error.name) ||
    sdk.$metadata?.httpStatusCode === 429 ||
    sdk.$retryable?.throttling === true;
  return throttled ? { code: error.name, message: error.message, retryable: true } : undefined;
}

/**
 * Wraps a whole-request failure that is not throttling (that is retried, see
 * {@link throttlingRefusal}); AWS marks client faults (bad input, no permission) as final.
 */
function requestError(target: PublishTargetName, error: unknown): PublishError {
  if (error instanceof PublishError) return error;
  const fault = faultOf(error);
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new PublishError(target, `request failed (${message})`, {
    cause: error,
    retryable: fault.retryable || fault.kind !== 'client',
  });
}

function faultOf(error: unknown): { kind: string | undefined; retryable: boolean } {
  if (typeof error !== 'object' || error === null) return { kind: undefined, retryable: true };
  const kind = '$fault' in error && typeof error.$fault === 'string' ? error.$fault : undefined;
  const retryable = '$retryable' in error && error.$retryable !== undefined;
  return { kind, retryable };
}

function recordOutcome<E>(
  options: BatchDeliveryOptions<E>,
  prepared: readonly PreparedEntry<E>[],
  delivered: readonly PreparedEntry<E>[],
  failures: readonly PublishFailure[],
  unfinishedReason: string | undefined,
): void {
  const { metrics, target } = options;
  for (const [type, count] of countBy(delivered.map((item) => item.event.type))) {
    metrics.recordPublished(target, type, count);
  }
  for (const failure of failures) metrics.recordFailed(target, failure.eventType, 1, failure.code);
  if (unfinishedReason === undefined) return;
  // A thrown publish leaves every entry neither accepted nor refused for good unpublished.
  const settled = new Set<PreparedEntry<E>>(delivered);
  const failed = new Set(failures.map((failure) => failure.eventId));
  const left = prepared.filter((item) => !settled.has(item) && !failed.has(item.event.id));
  for (const [type, count] of countBy(left.map((item) => item.event.type))) {
    metrics.recordFailed(target, type, count, unfinishedReason);
  }
}

function countBy(values: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}
