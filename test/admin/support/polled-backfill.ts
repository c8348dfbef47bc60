import type { AdminDeps } from '../../../shared/admin/admin-deps.ts';
import { MemoryBackfillJobStore } from '../../../shared/admin/backfill-jobs.ts';
import { handleAdminRequest } from '../../../shared/admin/router.ts';
import { seededRandom } from '../../../shared/clock.ts';
import type { ConnectorClient } from '../../../shared/connector/connector-client.ts';
import type { PollDeps } from '../../../shared/polling/poll-context.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../../shared/polling/poll-settings.ts';
import { type PollOutcome, pollStream } from '../../../shared/polling/poll-stream.ts';
import { MemoryStateStore } from '../../../shared/state/memory-state-store.ts';
import { processDispatchBatch } from '../../../shared/webhooks/dispatcher.ts';
import { type CollectingPublisher, collectingPollDeps } from '../../polling/poll-harness.ts';
import type { Harness } from '../../simulator/harness.ts';
import { type Receiver, startReceiver } from '../../webhooks/support/receiver.ts';
import { createAdminHarness } from './harness.ts';

/** A client whose next bulk pages wait while held (see {@link holdingClient}). */
export interface HoldingClient {
  client: ConnectorClient;
  /**
   * The next bulk paginated read (a backfill's or a first sync's), or with `anyRead` the next
   * paginated read whatever its priority (a listing's), waits before each page.
   */
  hold(anyRead?: boolean): void;
  /** Resolves once the held read has a page in hand. */
  reached(): Promise<void>;
  /** Lets the held read go on. */
  release(): void;
}

/**
 * `client`, whose next bulk paginated read (any, with `hold(true)`) waits with each page in hand
 * once `hold()` was called, until `release()`: the page is in flight while something else happens.
 */
export function holdingClient(client: ConnectorClient): HoldingClient {
  let held: { reached: () => void; release: Promise<void>; anyRead: boolean } | undefined;
  let reached = Promise.resolve();
  let release = () => {};
  const wrapped: ConnectorClient = Object.create(client);
  wrapped.paginate = ((name, body, options) => {
    const pages = client.paginate(name, body as never, options);
    const waiting = held?.anyRead || options?.budget?.priority === 'bulk' ? held : undefined;
    if (!waiting) return pages;
    held = undefined;
    return (async function* () {
      for await (const page of pages) {
        waiting.reached();
        await waiting.release;
        yield page;
      }
    })();
  }) as ConnectorClient['paginate'];
  return {
    client: wrapped,
    hold(anyRead = false) {
      let reachedNow = () => {};
      reached = new Promise((resolve) => {
        reachedNow = resolve;
      });
      held = {
        reached: reachedNow,
        release: new Promise((resolve) => {
          release = resolve;
        }),
        anyRead,
      };
    },
    reached: () => reached,
    release: () => release(),
  };
}

/** A backfill job's figures as `GET /backfill/{id}` answers them. */
export interface PolledJobView {
  id: string;
  done: boolean;
  deliveryDone: boolean;
  recordsRead: number;
  eventsPublished: number;
  webhooksDelivered: number;
  webhooksLeft: number;
  eventsQueued: number;
}

/** One stream of connection `main` polled by the real poller, with the admin API and a receiver. */
export interface PolledBackfill {
  /** Polls the stream once. */
  poll(): Promise<PollOutcome>;
  state: MemoryStateStore;
  publisher: CollectingPublisher;
  holding: HoldingClient;
  /** The admin API's backfill jobs. */
  backfills: MemoryBackfillJobStore;
  /** Hands the events published since the last call to the dispatcher, which delivers them. */
  dispatch(): Promise<void>;
  /** `POST /backfill` with `emit`; the job's id. */
  start(): Promise<string>;
  job(id: string): Promise<PolledJobView>;
  close(): Promise<void>;
}

/**
 * The stream of `entity` against `sim` (after its baseline first sync when `synced`), its polls
 * publishing to a collecting publisher, the admin API over its state, and a dispatcher with one
 * subscriber answering 200.
 */
export async function polledBackfill(
  sim: Harness,
  options: { entity: string; synced: boolean; historyStart?: string },
): Promise<PolledBackfill> {
  const settings = pollSettingsFromEnv(
    {
      POLL_ENTITIES: options.entity,
      ...(options.historyStart ? { POLL_HISTORY_START: options.historyStart } : {}),
    },
    sim.clock.now(),
  );
  const streams = streamDefinitions('main', settings);
  const stream = streams[0]!;
  const state = new MemoryStateStore();
  const holding = holdingClient(sim.client);
  const pollDeps: PollDeps & { publisher: CollectingPublisher } = collectingPollDeps(
    state,
    holding.client,
    sim.clock,
    settings,
  );
  const poll = () => pollStream(stream, pollDeps, 'test');
  if (options.synced) await poll();
  const receiver: Receiver = await startReceiver(() => ({ kind: 'respond', status: 200 }));
  const on = createAdminHarness();
  await on.deps.webhooks.createSubscription({ url: receiver.url('/hook') });
  const backfills = new MemoryBackfillJobStore();
  const deps: AdminDeps = {
    ...on.deps,
    state,
    streams: async () => streams,
    windows: settings.windows,
    backfills,
    clock: sim.clock,
    random: seededRandom(1),
  };
  const call = (method: string, path: string, body?: unknown) =>
    handleAdminRequest({ method, path, query: {}, body }, deps);
  let forwarded = 0;
  return {
    poll,
    state,
    publisher: pollDeps.publisher,
    holding,
    backfills,
    async dispatch() {
      for (const event of pollDeps.publisher.events.slice(forwarded)) {
        on.queue.sendRaw(
          JSON.stringify({ version: '0', 'detail-type': event.type, source: 'x', detail: event }),
        );
      }
      forwarded = pollDeps.publisher.events.length;
      for (;;) {
        const batch = on.queue.receive(10);
        if (batch.length === 0) return;
        await processDispatchBatch(batch, on.dispatcher);
      }
    },
    async start() {
      return ((await call('POST', '/backfill', { emit: true })).body as PolledJobView).id;
    },
    async job(id) {
      return (await call('GET', `/backfill/${id}`)).body as PolledJobView;
    },
    async close() {
      await on.close();
      await receiver.close();
    },
  };
}
