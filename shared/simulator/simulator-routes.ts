import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isOperationName } from '../connector/operations.ts';
import { serveApi } from './api.ts';
import { errorBody, sendJson } from './http-util.ts';
import { type ServedState, serveControl } from './simulator-control-routes.ts';
import type { SimulatorControls } from './simulator-options.ts';

/** Where the operations live (connector-api.md: the version is in the path). */
export const SIM_API_PREFIX = '/api/connector/v1/';

/** Answers one request: an operation under {@link SIM_API_PREFIX}, a control under `/_sim/`, else 404. */
export async function route(
  state: ServedState,
  controls: SimulatorControls,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://simulator');
  // Every answer carries a Request-Id (design.md), those that reach no operation too.
  const requestId = randomUUID();
  if (url.pathname.startsWith(SIM_API_PREFIX)) {
    const name = url.pathname.slice(SIM_API_PREFIX.length);
    if (!isOperationName(name)) {
      sendJson(response, 404, errorBody(`Unknown operation ${name}.`, requestId), requestId);
      return;
    }
    if (request.method !== 'POST') {
      sendJson(response, 405, errorBody('Operations are called with POST.', requestId), requestId, {
        allow: 'POST',
      });
      return;
    }
    await serveApi(state, name, request, response);
    return;
  }
  if (url.pathname.startsWith('/_sim/')) {
    await serveControl(state, controls, url, request, response);
    return;
  }
  sendJson(response, 404, errorBody('Not found.', requestId), requestId);
}
