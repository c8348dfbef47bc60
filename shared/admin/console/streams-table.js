/** The streams table: how each stream is polled, how far it got, and what went wrong. */

import { badge, duration, h, table, time } from './dom.js';

/**
 * Requests used of the connector budget, when the API gives them (per stream, or per
 * connection beside the streams).
 * @param {any} stream
 * @param {any} listing
 */
function budgetOf(stream, listing) {
  const budget =
    stream.budget ??
    (Array.isArray(listing.budgets)
      ? listing.budgets.find((/** @type {any} */ b) => b.connectionId === stream.connectionId)
      : undefined);
  if (!budget || typeof budget !== 'object') return '—';
  const pick = (/** @type {RegExp} */ pattern) =>
    Object.entries(budget).find(
      ([key, value]) => pattern.test(key) && typeof value === 'number',
    )?.[1];
  const used = pick(/used|requests|spent/i);
  const limit = pick(/limit|capacity|max/i);
  if (used === undefined) return '—';
  return limit === undefined ? String(used) : `${used} / ${limit}`;
}

/** @param {any} stream */
function streamStatus(stream) {
  if (stream.parked) return badge(`parked: ${stream.parkedReason ?? 'no reason given'}`, 'bad');
  if (stream.consecutiveFailures > 0)
    return badge(`${stream.consecutiveFailures} failures`, 'warn');
  if (!stream.initialSyncDone) return badge('first sync', 'muted');
  return badge('ok', 'ok');
}

/**
 * What the Last error column shows: the last poll's error, else the latest record the stream set
 * aside for breaking its schema (kept until a reset: its change was not published); '' for none.
 * @param {any} stream
 * @returns {string}
 */
export function streamLastError(stream) {
  return stream.lastError ?? stream.lastSetAside?.error ?? '';
}

/**
 * The streams table of `GET /streams`, of one connection when `connectionId` is given.
 * @param {any} listing
 * @param {string} [connectionId]
 */
export function streamsTable(listing, connectionId = '') {
  const rows = listing.streams.map((/** @type {any} */ s) => [
    h('span', {}, h('strong', {}, s.entityType), ' ', h('small', {}, s.connectionId)),
    s.strategy ?? '—',
    time(s.watermark),
    time(s.lastPollAt),
    duration(s.lagSeconds),
    budgetOf(s, listing),
    streamStatus(s),
    streamLastError(s) ? h('span', { class: 'error-text' }, streamLastError(s)) : '—',
  ]);
  return table(
    'Streams',
    [
      'Entity type',
      'Strategy',
      'Watermark',
      'Last poll',
      'Detection lag',
      'Budget used',
      'State',
      'Last error',
    ],
    rows,
    connectionId ? `No streams of connection ${connectionId}` : 'No streams configured',
    true,
  );
}
