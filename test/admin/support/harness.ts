import type { AdminDeps } from '../../../shared/admin/admin-deps.ts';
import { MemoryBackfillJobStore } from '../../../shared/admin/backfill-jobs.ts';
import type { AdminResponse } from '../../../shared/admin/route.ts';
import { handleAdminRequest } from '../../../shared/admin/router.ts';
import { ManualClock, seededRandom } from '../../../shared/clock.ts';
import { LocalKeyFileProvider } from '../../../shared/connections/local-key-file.ts';
import { MemoryConnectionStore } from '../../../shared/connections/memory-connection-store.ts';
import { createTokenCipher } from '../../../shared/connections/token-cipher.ts';
import type { HostResolver } from '../../../shared/dns/system-resolver.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../../shared/polling/poll-settings.ts';
import { MemoryStateStore } from '../../../shared/state/memory-state-store.ts';
import { MemoryDeliveryCounter } from '../../../shared/webhooks/delivery-counter.ts';
import { createDispatcherDeps } from '../../../shared/webhooks/dispatcher-deps.ts';
import { UndiciWebhookSender } from '../../../shared/webhooks/http-sender.ts';
import { MemoryWebhookStore } from '../../../shared/webhooks/memory-store.ts';
import { MemoryOperationalEventSink } from '../../../shared/webhooks/operational-events.ts';
import { MemoryDeliveryQueue } from '../../../shared/webhooks/queue.ts';
import { createWebhookService } from '../../../shared/webhooks/service.ts';

/** Resolves every name to 127.0.0.1 (tests need no DNS). */
const loopbackResolver: HostResolver = async () => [{ address: '127.0.0.1', family: 4 }];

/** Start of every harness clock: 2026-03-01T00:00:00Z. */
export const HARNESS_START_MS = Date.UTC(2026, 2, 1);

/** Options of {@link createAdminHarness}. */
export interface AdminHarnessOptions {
  /** WEBHOOK_ALLOW_PRIVATE (default true: loopback receivers allowed). */
  allowPrivate?: boolean;
  /** POLL_ENTITIES (default `customer,resource,taxEnvironment`). */
  entities?: string;
  /** How the admin API looks up a subscription URL's host (default: every name is 127.0.0.1). */
  resolve?: HostResolver;
}

/** The admin API on in-memory ports: webhook store and queue, state store, delivery counter, backfill jobs, a manual clock. */
export function createAdminHarness(options: AdminHarnessOptions = {}) {
  const clock = new ManualClock(HARNESS_START_MS);
  const store = new MemoryWebhookStore();
  const queue = new MemoryDeliveryQueue(clock);
  const state = new MemoryStateStore();
  const backfills = new MemoryBackfillJobStore();
  const deliveryCounter = new MemoryDeliveryCounter();
  const policy = { allowPrivate: options.allowPrivate ?? true };
  const sender = new UndiciWebhookSender({ policy, resolve: loopbackResolver, clock });
  const dispatcher = createDispatcherDeps({
    store,
    queue,
    sender,
    sink: new MemoryOperationalEventSink(),
    clock,
    random: seededRandom(11),
    logger: { warn: () => {}, error: () => {} },
    deliveryCounter,
  });
  const bytes = seededRandom(5);
  const settings = pollSettingsFromEnv(
    { POLL_ENTITIES: options.entities ?? 'customer,resource,taxEnvironment' },
    clock.now(),
  );
  const errors: unknown[] = [];
  const connections = new MemoryConnectionStore();
  const connectionChanges = { count: 0 };
  const streams = streamDefinitions('main', settings);
  const deps: AdminDeps = {
    webhooks: createWebhookService({
      ...dispatcher,
      policy,
      resolve: options.resolve ?? loopbackResolver,
      randomBytes: (size) => Uint8Array.from({ length: size }, () => Math.floor(bytes() * 256)),
    }),
    state,
    streams: async () => streams,
    windows: settings.windows,
    deliveryCounter,
    backfills,
    clock,
    random: seededRandom(3),
    // As `change-bridge start` on loopback without BRIDGE_ADMIN_TOKEN (the servers set their own).
    authentication: 'none',
    connections: {
      store: connections,
      cipher: createTokenCipher(new LocalKeyFileProvider(Buffer.alloc(32, 1))),
      state,
      clock,
      configured: [
        {
          id: 'main',
          enabled: true,
          createdAt: new Date(HARNESS_START_MS).toISOString(),
          origin: 'environment',
        },
      ],
      onChange: () => {
        connectionChanges.count += 1;
      },
    },
    onError: (error) => errors.push(error),
  };

  let closing: Promise<void> | undefined;
  /** Closes the webhook sender's pool; safe to call twice. */
  const close = () => {
    closing ??= sender.close();
    return closing;
  };

  /** Sends one request through the router. */
  function call(
    method: string,
    path: string,
    request: { query?: Record<string, string>; body?: unknown } = {},
  ): Promise<AdminResponse> {
    return handleAdminRequest(
      { method, path, query: request.query ?? {}, body: request.body },
      deps,
    );
  }

  return {
    clock,
    store,
    queue,
    state,
    backfills,
    deliveryCounter,
    dispatcher,
    connections,
    connectionChanges,
    settings,
    streams,
    deps,
    errors,
    call,
    close,
  };
}

/** A harness (see {@link createAdminHarness}). */
export type AdminHarness = ReturnType<typeof createAdminHarness>;

/** A change event as the dispatcher stores it. */
export function storedChangeEvent(id: string, type: string, entityId = 'c-1') {
  return {
    specversion: '1.0',
    id,
    type,
    source: 'connector/main',
    subject: entityId,
    time: '2026-03-01T00:00:00.000Z',
    datacontenttype: 'application/json',
    data: {
      entityType: type.split('.')[0],
      entityId,
      change: type.split('.')[1],
      scope: { enterpriseId: 'ent-1' },
      current: { Id: entityId },
      previous: null,
      changedFields: [],
      patch: [],
    },
  };
}
