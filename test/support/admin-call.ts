import { StreamListSchema } from '../../shared/admin/schemas.ts';
import { waitFor } from './wait-for.ts';

/** Calls one admin API route and returns its JSON answer; a status other than 2xx throws. */
export type AdminCall = (method: string, path: string, body?: unknown) => Promise<unknown>;

/**
 * An {@link AdminCall} against the admin API at `baseUrl()` (read at each call: a restarted
 * bridge may listen elsewhere).
 * @example const call = adminCaller(() => bridge.api); await call('GET', '/streams');
 */
export function adminCaller(baseUrl: () => string): AdminCall {
  return async (method, path, body) => {
    const response = await fetch(`${baseUrl()}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status}`);
    return response.json();
  };
}

/** Waits until the first stream the admin API lists has finished its first sync. */
export async function waitForFirstSync(call: AdminCall, timeoutMs = 30_000): Promise<void> {
  await waitFor(
    async () =>
      StreamListSchema.safeParse(await call('GET', '/streams')).data?.streams[0]?.initialSyncDone ||
      undefined,
    timeoutMs,
    'the first sync',
  );
}
