/** Overview: streams, events per minute, and the live event feed with its filters. */

import { api, query } from './api.js';
import { stackedBars } from './charts.js';
import { emptyRow, failedPlaceholder, h, keyedChildren, replace, say, time } from './dom.js';
import { createFeedTally, eventsPerMinute } from './feed-tally.js';
import { every } from './poll.js';
import { readEveryStream, streamsReadDue } from './streams-pages.js';
import { streamsTable } from './streams-table.js';

const FEED_POLL_MS = 2000;
const STREAMS_POLL_MS = 5000;
/** Events are listed once they are indexed, which may lag their storage time a little. */
const FEED_OVERLAP_MS = 10_000;
const FEED_KEEP = 500;
/** The most events the API lists in one answer (LIST_LIMIT_MAX). */
const FEED_PAGE_MAX = 1000;

/** @param {any} event */
function feedRow(event) {
  return h(
    'tr',
    { 'data-event-id': event.id },
    h('td', {}, time(event.storedAt)),
    h('td', {}, h('code', {}, event.type)),
    h(
      'td',
      {},
      h('a', { href: `#/events/${encodeURIComponent(event.id)}` }, event.subject ?? event.id),
    ),
  );
}

/**
 * A filter form of the overview: on submit, `apply` takes the new filter and reads again; a
 * failed read is said.
 * @param {string} label
 * @param {() => Promise<void>} apply
 * @param {...Node} fields
 */
function searchForm(label, apply, ...fields) {
  return h(
    'form',
    {
      class: 'filters',
      role: 'search',
      'aria-label': label,
      onsubmit: (/** @type {Event} */ e) => {
        e.preventDefault();
        apply().catch((error) => say(error.message, true));
      },
    },
    ...fields,
  );
}

/**
 * Renders the overview into `main`; returns a function that stops its polling.
 * @param {HTMLElement} main
 */
export function renderOverview(main) {
  const streamsLoading = h('p', {}, 'Loading streams…');
  const streamsBox = h('div', { class: 'scroll' }, streamsLoading);
  const chartBox = h('div', { class: 'chart-box' });
  const feedBody = h('tbody', {});
  const feedCount = h('p', { class: 'muted' }, '');
  const typeInput = h('input', {
    id: 'feed-type',
    name: 'type',
    list: 'feed-types',
    placeholder: 'customer.* or customer.updated',
  });
  const typeList = h('datalist', { id: 'feed-types' });
  const subjectInput = h('input', {
    id: 'feed-subject',
    name: 'subject',
    placeholder: 'entity id',
  });
  /** @type {Map<string, any>} */
  const events = new Map();
  /** @type {string | undefined} */
  let since;
  let skipped = false;
  let tally = createFeedTally({ overlapMs: 3 * FEED_OVERLAP_MS });
  let filterGeneration = 0;

  const filters = () => ({
    type: /** @type {HTMLInputElement} */ (typeInput).value.trim(),
    subject: /** @type {HTMLInputElement} */ (subjectInput).value.trim(),
  });

  function drawFeed() {
    const list = [...events.values()].sort(
      (a, b) => b.storedAt.localeCompare(a.storedAt) || (a.id < b.id ? 1 : -1),
    );
    const { type, subject } = filters();
    const searched = subject !== '' || type.includes('*');
    if (list.length === 0)
      replace(
        feedBody,
        emptyRow(
          3,
          searched
            ? 'No match among the newest 1,000 events (of the type, when it is exact): older events are not searched'
            : type !== ''
              ? 'No events of this type yet'
              : 'No events yet',
        ),
      );
    else keyedChildren(feedBody, list, (event) => event.id, feedRow);
    feedCount.textContent = skipped
      ? `${list.length} events shown; more than ${FEED_PAGE_MAX} arrived between two refreshes, the feed shows the newest of them`
      : `${list.length} events shown`;
    const types = [...new Set(list.map((e) => e.type))].sort();
    replace(typeList, ...types.map((type) => h('option', { value: type })));
    const nowMs = since ? Date.parse(since) : Date.now();
    const { total, ...perMinute } = eventsPerMinute(tally.perMinute, nowMs);
    const partFrom = tally.completeFrom();
    const partly =
      partFrom !== undefined && partFrom > nowMs - 30 * 60_000
        ? `; before ${new Date(partFrom).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })} only some were fetched`
        : '';
    replace(
      chartBox,
      stackedBars({
        title: 'Events per minute by type',
        summary: `${total} events in the last 30 minutes${partly}`,
        ...perMinute,
        unit: 'events',
      }),
    );
  }

  async function pollFeed() {
    const asked = filterGeneration;
    const { type, subject } = filters();
    const sinceParam = since
      ? new Date(Date.parse(since) - FEED_OVERLAP_MS).toISOString()
      : undefined;
    const feed = await api(
      'GET',
      `feed${query({ type, subject, since: sinceParam, limit: FEED_PAGE_MAX })}`,
    );
    // An answer to the filters of before the last change is dropped.
    if (asked !== filterGeneration) return;
    // A full answer: more arrived than one answer lists, the older ones are not fetched.
    const full = feed.events.length >= FEED_PAGE_MAX;
    skipped = since !== undefined && full;
    tally.add(feed.events, full, Date.parse(feed.now));
    for (const event of feed.events) events.set(event.id, event);
    const excess = [...events.values()]
      .sort((a, b) => a.storedAt.localeCompare(b.storedAt))
      .slice(0, Math.max(0, events.size - FEED_KEEP));
    for (const event of excess) events.delete(event.id);
    since = feed.now;
    drawFeed();
  }

  const connectionInput = h('input', {
    id: 'streams-connection',
    name: 'connectionId',
    placeholder: 'every connection',
  });
  /** The connection whose streams are shown ('' for all): one hotel of thousands at a glance. */
  let connectionId = '';
  let streamsGeneration = 0;
  /** @type {{ pages: number, readAtMs: number } | undefined} the last read of the streams */
  let streamsRead;

  /**
   * Reads every page of the streams and shows them; a listing of more than one page (past
   * 4,000 streams in AWS) only once a minute, unless `force`d (a new connection asked for).
   * @param {boolean} [force]
   */
  async function pollStreams(force = false) {
    if (!force && !streamsReadDue(streamsRead, Date.now())) return;
    const asked = streamsGeneration;
    const listing = await readEveryStream((path) => api('GET', path), connectionId).catch(
      (error) => {
        failedPlaceholder(streamsLoading, 'Streams', error);
        throw error;
      },
    );
    // An answer for the connection of before the last change is dropped.
    if (asked !== streamsGeneration) return;
    streamsRead = { pages: listing.pages, readAtMs: Date.now() };
    replace(streamsBox, streamsTable(listing, connectionId));
  }

  const streamsForm = searchForm(
    'Filter the streams',
    () => {
      connectionId = /** @type {HTMLInputElement} */ (connectionInput).value.trim();
      streamsGeneration += 1;
      return pollStreams(true);
    },
    h('label', { for: 'streams-connection' }, 'Connection'),
    connectionInput,
    h('button', { type: 'submit' }, 'Show'),
  );

  const filterForm = searchForm(
    'Filter the feed',
    () => {
      events.clear();
      tally = createFeedTally({ overlapMs: 3 * FEED_OVERLAP_MS });
      since = undefined;
      filterGeneration += 1;
      return pollFeed();
    },
    h('label', { for: 'feed-type' }, 'Type'),
    typeInput,
    typeList,
    h('label', { for: 'feed-subject' }, 'Subject'),
    subjectInput,
    h('button', { type: 'submit' }, 'Filter'),
  );

  replace(
    main,
    h(
      'section',
      { 'aria-labelledby': 'streams-title' },
      h('h2', { id: 'streams-title' }, 'Streams'),
      streamsForm,
      streamsBox,
    ),
    h(
      'section',
      { 'aria-labelledby': 'activity-title' },
      h('h2', { id: 'activity-title' }, 'Activity'),
      chartBox,
    ),
    h(
      'section',
      { 'aria-labelledby': 'feed-title' },
      h('h2', { id: 'feed-title' }, 'Live feed'),
      filterForm,
      feedCount,
      // Its box scrolls on a narrow window (long types and subjects), not the whole page.
      h(
        'div',
        { class: 'scroll' },
        h(
          'table',
          { id: 'feed' },
          h('caption', { class: 'visually-hidden' }, 'Newest events first'),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', { scope: 'col' }, 'Stored'),
              h('th', { scope: 'col' }, 'Type'),
              h('th', { scope: 'col' }, 'Subject'),
            ),
          ),
          feedBody,
        ),
      ),
    ),
  );
  const pollers = [every(() => pollStreams(), STREAMS_POLL_MS), every(pollFeed, FEED_POLL_MS)];
  return () => {
    for (const poller of pollers) poller.stop();
  };
}
