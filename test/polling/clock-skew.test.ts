import { describe, expect, it } from 'vitest';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { startPagedCustomerStream } from './paged-customer-stream.ts';

/**
 * Windows end at the bridge's now minus the settle lag, while the connector stamps UpdatedUtc
 * with its own clock. A bridge clock ahead of the connector's puts each change in a window
 * already read; the next window, starting the overlap before the watermark, must find it
 * (README, POLL_OVERLAP). Changes every 500 ms, each followed by a poll, then quiet polls.
 */
describe('a bridge clock ahead of the connector clock', () => {
  it.each([
    { behindMs: 4000, overlap: '5s' },
    { behindMs: 8000, overlap: '10s' },
  ])(
    'by $behindMs ms loses no change with POLL_OVERLAP $overlap',
    async ({ behindMs, overlap }) => {
      const h = await startPagedCustomerStream({
        overlap,
        settleLag: '500ms',
        connectorBehindMs: behindMs,
      });
      try {
        await pollStream(h.definition, h.deps, 'test');
        const model = h.sim.controls.model;
        const ids = [...model.customers.all()].slice(0, 20).map((e) => e.record.Id);
        for (const [i, id] of ids.entries()) {
          await h.clock.advance(500);
          model.update(model.customers, 'customer', id, { Notes: `change ${i}` });
          await pollStream(h.definition, h.deps, 'test');
        }
        for (let i = 0; i < 15; i++) {
          await h.clock.advance(1000);
          await pollStream(h.definition, h.deps, 'test');
        }
        const subjects = h.deps.publisher.events.map((e) => e.subject);
        expect(subjects.sort()).toEqual([...ids].sort());
      } finally {
        await h.close();
      }
    },
  );
});
