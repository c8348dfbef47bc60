import { afterEach, describe, expect, it } from 'vitest';
import { type DispatchRecord, parseBody } from '../../shared/webhooks/dispatch-record.ts';
import { changeEvent, createHarness, eventIdOf } from './support/harness.ts';
import { type Receiver, startReceiver } from './support/receiver.ts';

const { deps, metrics } = createHarness();
const record = (body: string): DispatchRecord => ({ messageId: 'm1', body });
const head =
  '"version":"0","id":"eb-1","detail-type":"customer.updated","source":"change-bridge",' +
  '"account":"000000000000","time":"2026-01-01T00:00:00Z","region":"us-east-1","resources":[]';

/**
 * An event's JSON as another writer may have spelled it: spaces, a number written `1.0`, an
 * escaped character, a nested `detail` key, and strings holding braces, quotes and backslashes.
 */
const unusualDetail = (n: number) =>
  `{ "specversion": "1.0", "id": "${eventIdOf(n)}", "type": "customer.updated",\n` +
  ' "source": "connector/main", "subject": "c-1", "time": "2026-01-01T00:00:00.000Z",' +
  ' "data": { "entityType": "customer", "scope": { "chainId": "chain-1" },' +
  ' "current": { "Notes": "Ren\\u00e9e said \\"}]{\\" and \\\\", "detail": { "x": 1.0 },' +
  ' "Score": 1.0 }, "previous": null, "changedFields": ["Notes"] } }';

describe('parseBody', () => {
  it('keeps the exact text of the envelope detail as the event body', () => {
    for (const body of [
      `{${head},"detail":${unusualDetail(1)}}`,
      // detail first, whitespace around the members
      `{ "detail" : ${unusualDetail(1)} ,\n ${head} }`,
    ]) {
      const parsed = parseBody(record(body), deps);
      expect(parsed?.kind).toBe('event');
      if (parsed?.kind !== 'event') return;
      expect(parsed.body).toBe(unusualDetail(1));
      expect(parsed.event).toEqual({
        id: eventIdOf(1),
        type: 'customer.updated',
        source: 'connector/main',
        subject: 'c-1',
        time: '2026-01-01T00:00:00.000Z',
        data: { scope: { chainId: 'chain-1' }, changedFields: ['Notes'] },
      });
    }
  });

  it('gives the JSON of the detail JSON.parse keeps when the envelope names detail twice or escaped', () => {
    const first = JSON.stringify(changeEvent(eventIdOf(2)));
    const last = JSON.stringify(changeEvent(eventIdOf(3)));
    const twice = parseBody(record(`{${head},"detail":${first},"detail":${last}}`), deps);
    expect(twice?.kind === 'event' && twice.body).toBe(last);
    const escaped = parseBody(record(`{${head},"detail":${first},"d\\u0065tail":${last}}`), deps);
    expect(escaped?.kind === 'event' && escaped.body).toBe(last);
  });

  it('reads delivery messages and drops malformed bodies', () => {
    const message = {
      kind: 'delivery',
      deliveryId: 'dlv_1',
      subscriptionId: 'sub_1',
      lane: 'bulk',
    };
    expect(parseBody(record(JSON.stringify(message)), deps)).toEqual(message);
    const before = metrics.counts.malformed ?? 0;
    for (const body of [
      'not json',
      '[]',
      JSON.stringify({ kind: 'delivery' }),
      `{${head}}`,
      `{${head},"detail":{"id":"evt_1"}}`,
    ])
      expect(parseBody(record(body), deps)).toBeUndefined();
    expect(metrics.counts.malformed).toBe(before + 5);
  });
});

describe('an event whose JSON another writer spelled', () => {
  let receiver: Receiver | undefined;
  afterEach(async () => {
    await receiver?.close();
  });

  it('is POSTed as those exact bytes, verified with standardwebhooks, and sent again the same', async () => {
    receiver = await startReceiver();
    const harness = createHarness();
    const created = await harness.service.createSubscription({ url: receiver.url('/exact') });
    receiver.secrets.set('/exact', [created.secret]);
    harness.queue.sendRaw(`{${head},"detail":${unusualDetail(4)}}`);
    await harness.drainVisible();
    await harness.service.replayEvent(eventIdOf(4));
    await harness.drainVisible();
    expect(receiver.log.map((r) => [r.body, r.verifiedWith])).toEqual([
      [unusualDetail(4), 1],
      [unusualDetail(4), 1],
    ]);
    await harness.sender.close();
  });
});
