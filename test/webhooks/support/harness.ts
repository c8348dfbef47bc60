import { type Clock, ManualClock, seededRandom } from '../../../shared/clock.ts';
import { KeyedSerial } from '../../../shared/concurrency.ts';
import type { HostResolver } from '../../../shared/dns/system-resolver.ts';
import type { DeliveryCounter } from '../../../shared/webhooks/delivery-counter.ts';
import { processDispatchBatch } from '../../../shared/webhooks/dispatcher.ts';
import {
  createDispatcherDeps,
  type DispatcherConfig,
  type DispatcherDeps,
} from '../../../shared/webhooks/dispatcher-deps.ts';
import { EndpointScheduler } from '../../../shared/webhooks/endpoint-scheduler.ts';
import { UndiciWebhookSender } from '../../../shared/webhooks/http-sender.ts';
import { MemoryWebhookStore } from '../../../shared/webhooks/memory-store.ts';
import { CountingMetrics } from '../../../shared/webhooks/metrics.ts';
import { MemoryOperationalEventSink } from '../../../shared/webhooks/operational-events.ts';
import { MemoryDeliveryQueue } from '../../../shared/webhooks/queue.ts';
import { createWebhookService } from '../../../shared/webhooks/service.ts';
import type { WebhookStore } from '../../../shared/webhooks/store.ts';
import { SubjectTurns } from '../../../shared/webhooks/subject-turns.ts';
import type { WaitingLedger } from '../../../shared/webhooks/waiting-ledger.ts';

/** Resolves every name to 127.0.0.1 (tests need no DNS). */
export const loopbackResolver: HostResolver = async () => [{ address: '127.0.0.1', family: 4 }];

/** Options of {@link createHarness}. */
export interface HarnessOptions {
  clock?: Clock;
  timeoutMs?: number;
  config?: Partial<DispatcherConfig>;
  store?: WebhookStore;
  seed?: number;
  deliveryCounter?: DeliveryCounter;
  /** The process's endpoint scheduler (one sharing slots with other harnesses, say). */
  scheduler?: EndpointScheduler;
  /** Which deliveries wait, shared with other processes (none: this process's memory alone). */
  waitingLedger?: WaitingLedger;
}

let byteSeed = 1;

/** The dispatcher and admin service on in-memory ports and the real undici sender. */
export function createHarness(options: HarnessOptions = {}) {
  const clock = options.clock ?? new ManualClock(Date.now());
  const store = options.store ?? new MemoryWebhookStore();
  const queue = new MemoryDeliveryQueue(clock);
  const sink = new MemoryOperationalEventSink();
  const metrics = new CountingMetrics();
  const sender = new UndiciWebhookSender({
    policy: { allowPrivate: true },
    resolve: loopbackResolver,
    clock,
    timeoutMs: options.timeoutMs ?? 2000,
  });
  const random = seededRandom(options.seed ?? 7);
  const deps = createDispatcherDeps({
    store,
    queue,
    sender,
    sink,
    clock,
    random,
    metrics,
    logger: { warn: () => {}, error: () => {} },
    config: options.config,
    ...(options.deliveryCounter ? { deliveryCounter: options.deliveryCounter } : {}),
    ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    ...(options.waitingLedger ? { waitingLedger: options.waitingLedger } : {}),
  });
  const bytes = seededRandom(byteSeed++);
  const service = createWebhookService({
    ...deps,
    policy: { allowPrivate: true },
    resolve: loopbackResolver,
    randomBytes: (size) => Uint8Array.from({ length: size }, () => Math.floor(bytes() * 256)),
  });

  /**
   * Processes the messages visible now, in batches of `batchSize`, until none is visible; by
   * this harness's dispatcher, or by `by` (another process's, on the same store and queue).
   */
  async function drainVisible(batchSize = 10, by: DispatcherDeps = deps): Promise<number> {
    let processed = 0;
    for (;;) {
      const batch = queue.receive(batchSize);
      if (batch.length === 0) return processed;
      const result = await processDispatchBatch(batch, by);
      for (const failure of result.batchItemFailures) {
        const failed = batch.find((m) => m.messageId === failure.itemIdentifier);
        if (failed) queue.sendRaw(failed.body, 1);
      }
      processed += batch.length;
    }
  }

  return { clock, store, queue, sink, metrics, sender, deps, service, drainVisible };
}

/**
 * Another dispatcher process on the same store, queue and ledger as `deps` (another Lambda
 * container, or the same process after a restart): its own scheduler and subject turns, which
 * know nothing yet.
 */
export function anotherProcess(deps: DispatcherDeps): DispatcherDeps {
  return createDispatcherDeps({
    ...deps,
    scheduler: new EndpointScheduler(deps.clock),
    turns: new SubjectTurns(),
    eventsInFlight: new Set(),
    endpointWrites: new KeyedSerial(),
  });
}

/** A change event like the catalogue's, wrapped in the EventBridge envelope the rule delivers. */
export function envelope(event: Record<string, unknown>): string {
  return JSON.stringify({
    version: '0',
    id: `eb-${String(event.id)}`,
    'detail-type': String(event.type),
    source: 'change-bridge',
    account: '000000000000',
    time: '2026-01-01T00:00:00Z',
    region: 'us-east-1',
    resources: [],
    detail: event,
  });
}

/** A `customer.updated`-style event with the given id. */
export function changeEvent(
  id: string,
  options: { type?: string; chainId?: string; changedFields?: string[]; subject?: string } = {},
): Record<string, unknown> {
  // Each event is about its own customer unless a test says otherwise (order is per subject).
  const subject = options.subject ?? `c-${id.slice(-6)}`;
  return {
    specversion: '1.0',
    id,
    type: options.type ?? 'customer.updated',
    source: 'connector/main',
    subject,
    time: '2026-01-01T00:00:00.000Z',
    datacontenttype: 'application/json',
    data: {
      entityType: 'customer',
      entityId: subject,
      change: 'updated',
      scope: { enterpriseId: 'ent-1', chainId: options.chainId ?? 'chain-1' },
      current: { Id: subject, Email: 'new@example.com' },
      previous: { Id: subject, Email: 'old@example.com' },
      changedFields: options.changedFields ?? ['Email'],
      patch: [{ op: 'replace', path: '/Email', value: 'new@example.com' }],
    },
  };
}

/** An event id in the catalogue's format, from a number. */
export function eventIdOf(n: number): string {
  return `evt_${String(n).padStart(26, '0')}`;
}
