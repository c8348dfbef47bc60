import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { MemoryGrantLedger } from '../../shared/connector/budget/grant-ledger.ts';
import { budgetKeyOf } from '../../shared/connector/budget/shared-budgets.ts';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';
import type { HttpTransport, RawResponse } from '../../shared/connector/http-transport.ts';
import { pollDeadline } from '../../shared/polling/invocation-deadline.ts';
import { pollConnectionStreams } from '../../shared/polling/poll-connection.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { initialStreamState } from '../../shared/polling/poll-stream.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { collectingPollDeps } from './poll-harness.ts';

const T0 = Date.UTC(2026, 10, 25, 8, 0, 0);
/** The poller Lambda's default timeout (infra/props.ts, pollerTimeoutSeconds). */
const POLLER_TIMEOUT_MS = 120_000;

/** A connector that answers its first request 429 with `Retry-After: <seconds>`, then empty pages. */
class RateLimitedOnceTransport implements HttpTransport {
  requests = 0;
  constructor(private readonly retryAfterSeconds: number) {}

  async postJson(): Promise<RawResponse> {
    this.requests++;
    if (this.requests === 1) {
      return {
        status: 429,
        headers: { 'retry-after': String(this.retryAfterSeconds) },
        text: JSON.stringify({ Message: 'Too many requests.' }),
      };
    }
    return { status: 200, headers: {}, text: JSON.stringify({ TaxEnvironments: [] }) };
  }

  async close(): Promise<void> {}
}

/** One synced taxEnvironment stream of connection `hotel`, polled by one job with `deadline`. */
async function runJob(transport: HttpTransport, accessToken: string, ledger?: MemoryGrantLedger) {
  const clock = new ManualClock(T0);
  const settings = pollSettingsFromEnv(
    { POLL_ENTITIES: 'taxEnvironment', POLL_INTERVAL: '1m' },
    T0,
  );
  const definitions = streamDefinitions('hotel', settings);
  const store = new MemoryStateStore();
  const synced = initialStreamState(definitions[0]!, T0);
  await store.saveStream({ ...synced, initialSyncDone: true, lastPollAt: T0 - 60_000 }, 0);
  const client = createConnectorClient(
    { baseUrl: 'http://connector.test', clientToken: 'c', accessToken, client: 't' },
    { clock, transport, ...(ledger ? { budgetLedger: ledger } : {}) },
  );
  const deadline = pollDeadline(T0, POLLER_TIMEOUT_MS);
  let endedAt: number | undefined;
  const job = pollConnectionStreams(
    definitions.map((d) => d.streamId),
    definitions,
    { ...collectingPollDeps(store, client, clock, settings), deadline },
    'invocation-1',
    T0 + 60_000,
  ).finally(() => {
    endedAt = clock.now();
  });
  for (let step = 0; endedAt === undefined && step < 400; step++) await clock.advance(1_000);
  const result = await job;
  const state = await store.getStream(definitions[0]!.streamId);
  return { result, endedAt: endedAt!, deadline, state, streamId: definitions[0]!.streamId, clock };
}

describe('a poll job near its invocation deadline', () => {
  it('stops waiting out a long Retry-After at the deadline, before the Lambda timeout, and leaves the stream due for the next job', async () => {
    const transport = new RateLimitedOnceTransport(120);
    const { result, endedAt, deadline, state, streamId, clock } = await runJob(
      transport,
      'deadline-test-retry-after',
    );

    // Lambda kills the invocation at its timeout: the job must have answered before it.
    expect(endedAt).toBeLessThanOrEqual(deadline + 1_000);
    expect(endedAt).toBeLessThan(T0 + POLLER_TIMEOUT_MS);
    expect(transport.requests).toBe(1);
    expect(result.outcomes).toEqual([{ kind: 'skipped', streamId, reason: 'stopped' }]);
    // Not counted as a failure of the stream, and still due: the next job polls it.
    expect(state?.consecutiveFailures).toBe(0);
    expect(result.nextDueAt).toBeLessThanOrEqual(clock.now());
  });

  it('stops waiting for a token another invocation saw paused for 120 s at the deadline', async () => {
    const transport = new RateLimitedOnceTransport(0);
    transport.requests = 1;
    const token = 'deadline-test-paused-budget';
    const ledger = new MemoryGrantLedger();
    await ledger.pause(budgetKeyOf(token), T0 + 120_000);
    const { result, endedAt, deadline, streamId } = await runJob(transport, token, ledger);

    expect(endedAt).toBeLessThanOrEqual(deadline + 1_000);
    expect(transport.requests).toBe(1);
    expect(result.outcomes).toEqual([{ kind: 'skipped', streamId, reason: 'stopped' }]);
  });
});
