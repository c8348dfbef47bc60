import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { activityRunSchema } from './activity-run-schema.ts';
import type { ApiState } from './api.ts';
import type { EnterpriseToken } from './enterprise-tokens.ts';
import { FaultConfigSchema } from './faults.ts';
import { readBody, SIM_BODY_TOO_LARGE_MESSAGE, sendJson } from './http-util.ts';
import { JournalGapError } from './journal.ts';
import type { SimulatorControls } from './simulator-options.ts';

/** What the server's routes read besides the API's state. */
export type ServedState = ApiState & {
  enterpriseTokens: EnterpriseToken[];
  /** The bounds of a run of `POST /_sim/activity` (see {@link activityRunSchema}). */
  activityRun: ReturnType<typeof activityRunSchema>;
};

/**
 * Answers one control request under `/_sim/` (journal, requests, faults, activity, rate limits,
 * tokens, world): 400 for a body or parameter out of bounds, 404 for an unknown control.
 */
export async function serveControl(
  state: ServedState,
  controls: SimulatorControls,
  url: URL,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const reply = (status: number, body: unknown) =>
    sendJson(response, status, JSON.stringify(body), 'control');
  const input = async (): Promise<unknown> => {
    const text = await readBody(request);
    if (text === undefined) throw new SyntaxError(SIM_BODY_TOO_LARGE_MESSAGE);
    return text.trim() === '' ? {} : JSON.parse(text);
  };
  const path = url.pathname.slice('/_sim/'.length);
  try {
    if (path === 'journal' && request.method === 'GET') {
      const journal = state.model.journal;
      const since = url.searchParams.get('since');
      if (since !== null && !/^\d+$/.test(since))
        return reply(400, {
          Message: `since: must be a whole number of 0 or more (the seq of the last entry read), not ${JSON.stringify(since)}`,
        });
      try {
        const entries = controls.journal(since === null ? undefined : Number(since));
        return reply(200, { entries, lastSeq: journal.lastSeq, dropped: journal.dropped });
      } catch (error) {
        if (!(error instanceof JournalGapError)) throw error;
        return reply(410, {
          Message: error.message,
          lastSeq: journal.lastSeq,
          dropped: journal.dropped,
        });
      }
    }
    if (path === 'requests' && request.method === 'GET')
      return reply(200, { requests: controls.requestLog(), dropped: controls.requestLogDropped() });
    if (path === 'requests' && request.method === 'DELETE') {
      controls.clearRequestLog();
      return reply(200, {});
    }
    if (path === 'faults' && request.method === 'GET') return reply(200, state.faults.current());
    if (path === 'faults' && request.method === 'POST') {
      return reply(200, controls.setFaults(FaultConfigSchema.partial().parse(await input())));
    }
    if (path === 'activity' && request.method === 'POST') {
      await controls.runActivity(state.activityRun.parse(await input()));
      return reply(200, { lastSeq: state.model.journal.lastSeq });
    }
    if (path === 'rate-limits/reset' && request.method === 'POST') {
      controls.resetRateLimits();
      return reply(200, {});
    }
    if (path === 'tokens' && request.method === 'GET') {
      return reply(200, {
        clientToken: state.tokens.clientToken,
        portfolioToken: state.tokens.portfolioToken,
        enterprises: state.enterpriseTokens,
      });
    }
    if (path === 'world' && request.method === 'GET') {
      const world = state.model.world;
      return reply(200, {
        chainId: world.chainId,
        chainIds: world.chainIds,
        enterprises: world.enterprises.map((e) => ({
          id: e.Id,
          chainId: e.ChainId,
          name: e.Name,
          timeZone: e.timeZone,
          currency: e.currency,
        })),
        products: world.products.map((p) => ({
          id: p.Id,
          enterpriseId: p.EnterpriseId,
          name: p.Name,
        })),
      });
    }
    return reply(404, { Message: `Unknown control ${request.method} /_sim/${path}` });
  } catch (error) {
    if (error instanceof z.ZodError || error instanceof SyntaxError)
      return reply(400, { Message: error.message });
    throw error;
  }
}
