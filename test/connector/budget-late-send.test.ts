import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { type GrantLedger, MemoryGrantLedger } from '../../shared/connector/budget/grant-ledger.ts';
import { busiestWindow } from '../../shared/connector/budget/sliding-log.ts';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';
import type { HttpTransport, RawResponse } from '../../shared/connector/http-transport.ts';

/** Four requests per 4 s as the server counts them, spaced on our side over 4.5 s. */
const LIMIT = { requests: 4, windowMs: 4_000 };
const MARGIN_MS = 500;
/** How long the starved process's ledger takes to answer its first grant. */
const STARVED_MS = 3_000;
const TOKEN = 'late-send-token';

/** The server: notes when each request arrives (the manual clock's time) and answers at once. */
class ArrivalLog implements HttpTransport {
  readonly arrivals: number[] = [];
  constructor(private readonly clock: ManualClock) {}

  async postJson(): Promise<RawResponse> {
    this.arrivals.push(this.clock.now());
    return { status: 200, headers: {}, text: JSON.stringify({ TaxEnvironments: [] }) };
  }

  async close(): Promise<void> {}
}

/**
 * One process's view of the shared ledger (its own object, so its own budget): its first take
 * is recorded at once but answered `delayMs` later, as a process starved of CPU right after it
 * claimed a grant sends that late. It notes how often it re-stamps a grant.
 */
function processLedger(shared: MemoryGrantLedger, clock: ManualClock, delayMs = 0) {
  let delays = delayMs > 0 ? 1 : 0;
  const writes = { takes: 0, restamps: 0 };
  const ledger: GrantLedger = {
    async take(...args) {
      writes.takes++;
      const result = await shared.take(...args);
      if (delays-- > 0) await clock.sleep(delayMs);
      return result;
    },
    async restamp(...args) {
      writes.restamps++;
      return shared.restamp(...args);
    },
    recent: (...args) => shared.recent(...args),
    pause: (...args) => shared.pause(...args),
    release: (...args) => shared.release(...args),
  };
  return { ledger, writes };
}

/** One process's client of the token, its grants recorded in `ledger`. */
function clientOf(clock: ManualClock, server: ArrivalLog, ledger: GrantLedger) {
  return createConnectorClient(
    {
      baseUrl: 'http://connector.test',
      clientToken: 'client',
      accessToken: TOKEN,
      client: 'test',
      rateLimit: LIMIT,
    },
    { clock, transport: server, budgetLedger: ledger, budgetMarginMs: MARGIN_MS },
  );
}

describe('a request sent later than its grant, the ledger shared by two processes', () => {
  it('is re-stamped before it goes, so no window of the server counts more than the limit', async () => {
    const clock = new ManualClock(0);
    const server = new ArrivalLog(clock);
    const shared = new MemoryGrantLedger();
    const starved = processLedger(shared, clock, STARVED_MS);
    const prompt = processLedger(shared, clock);
    const starvedClient = clientOf(clock, server, starved.ledger);
    const promptClient = clientOf(clock, server, prompt.ledger);
    // The starved process claims its grant at 0 and sends at 3 s; the other fills the window at
    // 0 and asks four more, which the ledger grants when the grants at 0 leave its 4.5 s.
    const late = starvedClient.call('taxEnvironments/getAll', {});
    await clock.advance(0);
    const others = Array.from({ length: 7 }, () => promptClient.call('taxEnvironments/getAll', {}));
    for (let at = 0; at < 12_000; at += 100) await clock.advance(100);
    await Promise.all([late, ...others]);

    expect(server.arrivals).toHaveLength(8);
    expect(server.arrivals.filter((at) => at === STARVED_MS)).toHaveLength(1);
    // Before, the ledger counted the late request at 0 while it arrived at 3 s, beside the four
    // granted at 4.5 s: five in the server's window from 3 s.
    expect(busiestWindow(server.arrivals, LIMIT.windowMs)).toBeLessThanOrEqual(LIMIT.requests);
    // One write more for the late grant; none for the grants sent at once.
    expect(starved.writes).toEqual({ takes: 1, restamps: 1 });
    expect(prompt.writes.restamps).toBe(0);
  });
});
