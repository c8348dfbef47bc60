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

/**
 * What the State column says of a stream, and its badge's colour. A stream no longer
 * configured (its entity dropped, its connection disabled or removed with its state kept) is
 * not polled at all, as `streams list` says. Pure.
 * @param {any} stream
 * @returns {{ text: string, kind: 'ok' | 'warn' | 'bad' | 'muted' }}
 * @example streamState({ configured: false, initialSyncDone: true }) // { text: 'not polled', kind: 'muted' }
 */
export function streamState(stream) {
  if (stream.configured === false) return { text: 'not polled', kind: 'muted' };
  if (stream.parked)
    return { text: `parked: ${stream.parkedReason ?? 'no reason given'}`, kind: 'bad' };
  if (stream.consecutiveFailures > 0)
    return { text: `${stream.consecutiveFailures} failures`, kind: 'warn' };
  if (!stream.initialSyncDone) return { text: 'first sync', kind: 'muted' };
  return { text: 'ok', kind: 'ok' };
}

/** @param {any} stream */
function streamStatus(stream) {
  const { text, kind } = streamState(stream);
  return badge(text, kind);
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
 * The most streams the table shows at once: 1,000 connections have 13,000 streams, whose rows
 * took the page seconds to build at every refresh (every 5 s), and no one reads them all.
 */
export const STREAMS_SHOWN_MAX = 500;

/** @param {any} stream 0 parked, 1 failing, 2 with a last error, 3 the rest (and those not polled) */
function attentionRank(stream) {
  if (stream.configured === false) return 3;
  if (stream.parked) return 0;
  if (stream.consecutiveFailures > 0) return 1;
  return streamLastError(stream) ? 2 : 3;
}

/**
 * The streams the table shows: at most `max`, parked ones first, then failing ones, then those
 * with a last error, then the rest, each group in the API's order. Pure.
 * @param {any[]} streams
 * @param {number} [max]
 * @returns {any[]}
 * @example streamsToShow([ok, parked], 1) // [parked]
 */
export function streamsToShow(streams, max = STREAMS_SHOWN_MAX) {
  if (streams.length <= max) return streams;
  /** @type {any[][]} */
  const groups = [[], [], [], []];
  for (const stream of streams) groups[attentionRank(stream)]?.push(stream);
  return groups.flat().slice(0, max);
}

/**
 * The streams table of `GET /streams` (every page, as readEveryStream reads them), of one
 * connection when `connectionId` is given; over {@link STREAMS_SHOWN_MAX} streams, a line
 * before it says how many it leaves out, and one says so when they took several pages.
 * @param {any} listing
 * @param {string} [connectionId]
 */
export function streamsTable(listing, connectionId = '') {
  const shown = streamsToShow(listing.streams);
  const count = new Intl.NumberFormat('en-US');
  // A listing of several answers (readEveryStream) is read again once a minute, not every 5 s.
  const paged = listing.pages > 1 ? '; read in several pages, so refreshed once a minute' : '';
  const note =
    shown.length < listing.streams.length
      ? h(
          'p',
          { class: 'muted' },
          `${count.format(shown.length)} of ${count.format(listing.streams.length)} streams shown, parked and failing ones first: choose a connection to see all of its streams${paged}`,
        )
      : paged
        ? h('p', { class: 'muted' }, `${count.format(listing.streams.length)} streams${paged}`)
        : null;
  const rows = shown.map((/** @type {any} */ s) => [
    h('span', {}, h('strong', {}, s.entityType), ' ', h('small', {}, s.connectionId)),
    s.strategy ?? '—',
    time(s.watermark),
    time(s.lastPollAt),
    duration(s.lagSeconds),
    budgetOf(s, listing),
    streamStatus(s),
    streamLastError(s) ? h('span', { class: 'error-text' }, streamLastError(s)) : '—',
  ]);
  const element = table(
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
  return note ? h('div', {}, note, element) : element;
}
