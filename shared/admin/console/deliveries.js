/** Deliveries of an event or a subscription, every attempt, a latency chart and replay. */

import { api, query } from './api.js';
import { latencyHistogram, stackedBars } from './charts.js';
import { badge, failedPlaceholder, h, keyedChildren, replace, say, table, time } from './dom.js';
import { every } from './poll.js';

const EXCERPT_CHARS = 160;
const DELIVERIES_POLL_MS = 3000;

/** @param {string} status */
function statusBadge(status) {
  return badge(status, status === 'delivered' ? 'ok' : status === 'dead' ? 'bad' : 'warn');
}

/** @param {any} attempt */
function attemptRow(attempt) {
  const excerpt = (attempt.responseBody || attempt.error || '').slice(0, EXCERPT_CHARS);
  return [
    String(attempt.attempt),
    time(attempt.at),
    attempt.status !== undefined ? String(attempt.status) : 'no response',
    `${Math.round(attempt.latencyMs)} ms`,
    attempt.outcome,
    excerpt ? h('code', { class: 'excerpt' }, excerpt) : '—',
  ];
}

/**
 * One delivery: what it carries, where it stands, its attempts and a replay button.
 * @param {any} entry `{ delivery, attempts }`
 * @param {() => void} refresh called after a replay
 */
function deliveryCard({ delivery, attempts }, refresh) {
  const replay = async () => {
    try {
      const result = await api('POST', `events/${encodeURIComponent(delivery.eventId)}/replay`, {
        subscriptionId: delivery.subscriptionId,
      });
      say(
        `Replayed ${delivery.eventId} as delivery ${result.deliveries.map((/** @type {any} */ d) => d.id).join(', ')}`,
      );
      refresh();
    } catch (error) {
      say(`Replay failed: ${/** @type {Error} */ (error).message}`, true);
    }
  };
  return h(
    'article',
    {
      class: 'delivery',
      'data-delivery-id': delivery.id,
      'data-event-id': delivery.eventId,
      'aria-labelledby': `title-${delivery.id}`,
    },
    h(
      'header',
      {},
      h('h3', { id: `title-${delivery.id}` }, 'Delivery ', h('code', {}, delivery.id)),
      statusBadge(delivery.status),
      h(
        'button',
        {
          type: 'button',
          class: 'replay',
          onclick: replay,
          'aria-label': `Replay event ${delivery.eventId} to ${delivery.subscriptionId}`,
        },
        'Replay',
      ),
    ),
    h(
      'p',
      { class: 'muted' },
      'Event ',
      h('a', { href: `#/events/${encodeURIComponent(delivery.eventId)}` }, delivery.eventId),
      ' → ',
      h(
        'a',
        { href: `#/deliveries?subscription=${encodeURIComponent(delivery.subscriptionId)}` },
        delivery.subscriptionId,
      ),
      ' · created ',
      time(delivery.createdAt),
      delivery.deadReason ? ` · dead: ${delivery.deadReason}` : '',
    ),
    h(
      'div',
      { class: 'scroll' },
      table(
        `Attempts of delivery ${delivery.id}`,
        ['#', 'At', 'Status', 'Latency', 'Outcome', 'Response'],
        attempts.map(attemptRow),
        'No attempt yet',
        true,
      ),
    ),
  );
}

/**
 * A live list of deliveries (by subscription, by event, or all); returns the element and
 * a stop function.
 * @param {{ subscription?: string, event?: string }} filter
 */
export function deliveriesPanel(filter) {
  const chart = h('div', { class: 'chart-box' });
  const loading = h('p', {}, 'Loading deliveries…');
  const list = h('div', { class: 'deliveries' }, loading);
  // Runs after a replay, by which time the poller below exists.
  const refresh = () => {
    poller.now();
  };
  async function load() {
    const { deliveries } = await api('GET', `deliveries${query({ ...filter, limit: 50 })}`).catch(
      (error) => {
        failedPlaceholder(loading, 'Deliveries', error);
        throw error;
      },
    );
    const attempts = deliveries.flatMap((/** @type {any} */ d) => d.attempts);
    const delivered = attempts.filter((/** @type {any} */ a) => a.outcome === 'delivered').length;
    replace(
      chart,
      attempts.length === 0
        ? h('p', { class: 'muted' }, 'Delivery latency: no attempts yet')
        : stackedBars({
            title: 'Delivery latency',
            summary: `${attempts.length} attempts, ${delivered} delivered`,
            ...latencyHistogram(attempts),
            unit: 'attempts',
            colors: [1, 2],
          }),
    );
    if (deliveries.length === 0) replace(list, h('p', {}, 'No deliveries yet'));
    else
      keyedChildren(
        list,
        deliveries,
        ({ delivery, attempts }) => `${delivery.id}:${delivery.version}:${attempts.length}`,
        (entry) => deliveryCard(entry, refresh),
      );
  }

  const poller = every(load, DELIVERIES_POLL_MS);
  return { element: h('div', {}, chart, list), stop: poller.stop };
}
