import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import { ConnectorError } from '../../shared/connector/errors.ts';
import type { PublishableEvent } from '../../shared/publish/publishable-event.ts';
import { SIM_MAX_SLOW_MS } from '../../shared/simulator/faults.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { createWriteThrough, type WriteThrough } from '../../shared/writes/write-through.ts';
import { collectingPublisher, simulatorConnector } from './support/simulator-writes.ts';

/**
 * The client gives up on an answer after this long: longer than this process (the simulator runs
 * in it) takes to read and answer a request on a loaded machine. At 150 ms, a process starved of
 * the CPU for longer let the client give up on an add the simulator had not read yet, which it
 * then applied during the next test (counted in its request log), or not at all.
 */
const CLIENT_TIMEOUT_MS = 2_000;
/**
 * The simulator's slow answer never comes before the client gives up: the simulator drops it when
 * the client closes the connection, so it ends with the test that asked for it.
 */
const SLOW_ANSWER_MS = SIM_MAX_SLOW_MS;

describe('write-through retries against the simulator', () => {
  let sim: RunningSimulator;
  let writeThrough: WriteThrough;
  const published: PublishableEvent[] = [];

  beforeAll(async () => {
    sim = await startSimulator({ seed: 41, rateLimit: false });
    writeThrough = createWriteThrough({
      connectionId: 'main',
      connector: simulatorConnector(sim, { timeoutMs: CLIENT_TIMEOUT_MS }),
      scope: {},
      publisher: collectingPublisher(published),
      state: new MemoryStateStore(),
      streams: [],
      clock: systemClock,
      // The shortest backoff, so a retry (where one is made) comes at once.
      clientDeps: { random: () => 0 },
    });
  }, 30_000);

  afterEach(() => {
    sim.controls.setFaults({ script: [] });
    sim.controls.clearRequestLog();
  });

  afterAll(async () => {
    await writeThrough?.close();
    await sim?.close();
  });

  const enterprise = () => sim.controls.model.world.enterprises[0]!;
  const paymentRequestsDescribed = (description: string) =>
    [...sim.controls.model.paymentRequests.all()].filter(
      (entry) => entry.record.Description === description,
    );

  function addPaymentRequest(description: string) {
    const customer = [...sim.controls.model.customers.all()][0]!.record;
    return writeThrough.forward('paymentRequests/add', {
      EnterpriseId: enterprise().Id,
      PaymentRequests: [
        {
          AccountId: customer.Id,
          Amount: { Currency: 'EUR', Value: 40 },
          Type: 'Payment',
          Reason: 'Deposit',
          ExpirationUtc: new Date(Date.now() + 86_400_000).toISOString(),
          Description: description,
        },
      ],
    });
  }

  it('never repeats an add whose answer was lost after the connector applied it', async () => {
    // The simulator applies the add, then answers after the client has stopped waiting.
    sim.controls.setFaults({ script: ['slow'], slowMs: SLOW_ANSWER_MS });
    const error = await addPaymentRequest('lost answer').catch((caught: unknown) => caught);
    // Before, the client sent it again: the hotel held two payment requests for one call.
    expect(paymentRequestsDescribed('lost answer')).toHaveLength(1);
    expect(sim.controls.requestLog()).toHaveLength(1);
    expect(error).toBeInstanceOf(ConnectorError);
    expect((error as ConnectorError).category).toBe('network');
    expect((error as ConnectorError).message).toMatch(/may have been applied/);
  });

  it('answers the connector error of an add without sending it again', async () => {
    sim.controls.setFaults({ script: ['internal'] });
    const result = await addPaymentRequest('internal error');
    expect(result.status).toBe(500);
    expect(result.events).toBe(0);
    expect(sim.controls.requestLog()).toHaveLength(1);
    expect(paymentRequestsDescribed('internal error')).toHaveLength(0);
  });

  it('still retries an update, which applied twice leaves the same record', async () => {
    const customer = [...sim.controls.model.customers.all()][1]!.record;
    sim.controls.setFaults({ script: ['slow'], slowMs: SLOW_ANSWER_MS });
    const result = await writeThrough.forward('customers/update', {
      CustomerId: customer.Id,
      Notes: 'retried update',
    });
    expect(result.status).toBe(200);
    expect(sim.controls.requestLog()).toHaveLength(2);
    expect(sim.controls.model.customers.get(customer.Id)!.record.Notes).toBe('retried update');
  });
});
