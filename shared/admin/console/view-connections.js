/** Connections: each one's settings, where its streams stand, and removing one. Never a token. */

import { api } from './api.js';
import { confirmAction } from './confirm.js';
import { streamsSummaries } from './connection-streams.js';
import {
  badge,
  duration,
  emptyRow,
  failedPlaceholder,
  h,
  keepingFocus,
  keyedChildren,
  replace,
  say,
  tableShell,
  time,
} from './dom.js';
import { readEveryPage } from './pages.js';
import { every } from './poll.js';
import { readEveryStream, streamsReadDue } from './streams-pages.js';

const CONNECTIONS_POLL_MS = 10_000;
const HEADERS = ['Connection', 'State', 'Polls', 'Streams', 'Added', 'Actions'];

/**
 * The fields of a connection the page shows, picked by name: whatever else an answer carried
 * (a token, were a bridge ever to send one) is never drawn.
 * @param {any} c
 */
function shownFields(c) {
  return {
    id: String(c.id),
    enabled: c.enabled === true,
    origin: c.origin,
    error: typeof c.error === 'string' ? c.error : undefined,
    entities: Array.isArray(c.entities) ? c.entities.map(String) : undefined,
    intervalMs: typeof c.intervalMs === 'number' ? c.intervalMs : undefined,
    createdAt: c.createdAt,
  };
}

/**
 * Renders the connections page; returns a function that stops it.
 * @param {HTMLElement} main
 */
export function renderConnections(main) {
  const shell = tableShell('Connections', HEADERS, true);
  const loadingRow = emptyRow(HEADERS.length, 'Loading connections…');
  shell.body.append(loadingRow);
  /** @type {Map<string, string> | undefined} each connection's streams in a line, once read */
  let summaries;
  /** @type {{ pages: number, readAtMs: number } | undefined} */
  let streamsRead;

  /** @param {ReturnType<typeof shownFields>} c */
  async function remove(c) {
    const confirmed = await confirmAction({
      title: `Remove connection ${c.id}?`,
      message: `Polling of ${c.id} stops, and its stored token and its streams' state and snapshots are deleted: this cannot be undone (added again, its streams start with a first sync).`,
      action: 'Remove',
    });
    if (!confirmed) return;
    try {
      const removed = await api('DELETE', `connections/${encodeURIComponent(c.id)}`);
      const background = removed.stateDeletion === 'background' ? ' (in the background)' : '';
      say(`Connection ${c.id} removed, ${removed.streamsDeleted} streams deleted${background}`);
    } catch (error) {
      say(`Removing ${c.id} failed: ${/** @type {Error} */ (error).message}`, true);
    }
    await poller.now();
  }

  /** @param {ReturnType<typeof shownFields> & { streams: string | undefined }} c */
  function connectionRow(c) {
    const fromEnvironment = c.origin === 'environment';
    return h(
      'tr',
      { 'data-item': c.id },
      h(
        'td',
        {},
        h('strong', {}, c.id),
        h('br'),
        h('small', {}, fromEnvironment ? 'CONNECTOR_* variables' : 'added at run time'),
      ),
      h(
        'td',
        {},
        c.error
          ? badge(`not polled: ${c.error}`, 'bad')
          : c.enabled
            ? badge('enabled', 'ok')
            : badge('disabled', 'muted'),
      ),
      h(
        'td',
        {},
        c.entities ? c.entities.join(', ') : 'every entity type',
        c.intervalMs === undefined ? null : h('br'),
        c.intervalMs === undefined
          ? null
          : h('small', {}, `every ${duration(c.intervalMs / 1000)}`),
      ),
      h('td', {}, c.streams ?? (summaries ? 'no streams' : '…')),
      h('td', {}, time(c.createdAt)),
      h(
        'td',
        {},
        h(
          'button',
          {
            type: 'button',
            'data-focus': 'remove',
            'aria-label': `Remove connection ${c.id}`,
            disabled: fromEnvironment,
            title: fromEnvironment
              ? 'The connection of the CONNECTOR_* variables: change them to remove it'
              : undefined,
            onclick: () => remove(c),
          },
          'Remove',
        ),
      ),
    );
  }

  async function load() {
    const readStreams = streamsReadDue(streamsRead, Date.now());
    const [{ items: connections }, listing] = await Promise.all([
      // Past 4,000 connections in AWS, the API answers them in pages. Without their parked
      // streams: the page reads the streams (less often when they take pages), and each refresh
      // would otherwise read every connection's stream states.
      readEveryPage((path) => api('GET', path), 'connections', 'connections', {
        parkedStreams: 'false',
      }),
      readStreams ? readEveryStream((path) => api('GET', path)) : undefined,
    ]).catch((error) => {
      failedPlaceholder(loadingRow, 'Connections', error);
      throw error;
    });
    if (listing) {
      summaries = streamsSummaries(listing.streams);
      streamsRead = { pages: listing.pages, readAtMs: Date.now() };
    }
    if (connections.length === 0) {
      replace(shell.body, emptyRow(HEADERS.length, 'No connections'));
      return;
    }
    const rows = connections.map((/** @type {any} */ c) => ({
      ...shownFields(c),
      streams: summaries?.get(String(c.id)),
    }));
    keepingFocus(shell.body, () =>
      keyedChildren(shell.body, rows, (row) => JSON.stringify(row), connectionRow),
    );
  }

  replace(
    main,
    h(
      'section',
      { 'aria-labelledby': 'connections-title' },
      h('h2', { id: 'connections-title' }, 'Connections'),
      h('div', { class: 'scroll' }, shell.table),
    ),
  );
  const poller = every(load, CONNECTIONS_POLL_MS);
  return poller.stop;
}
