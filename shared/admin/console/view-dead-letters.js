/** A subscription's dead letters: each one to deliver again, or all of them at once. */

import { api, query } from './api.js';
import { confirmAction } from './confirm.js';
import { stillDeadLettered } from './dead-letters.js';
import {
  emptyRow,
  failedPlaceholder,
  h,
  keyedChildren,
  replace,
  say,
  tableShell,
  time,
} from './dom.js';
import { keepingFocus } from './focus.js';
import { every } from './poll.js';

const DEAD_LETTERS_POLL_MS = 10_000;
/** Deliveries read to find the dead letters among (the log has no filter by status). */
const DELIVERIES_READ = 200;
const HEADERS = ['Event', 'Dead since', 'Reason', 'Attempts', 'Action'];
/** Before every dead letter: `POST /subscriptions/{id}/redeliver` sends those dead since. */
const EVERY_DEAD_LETTER_SINCE = new Date(0).toISOString();

/**
 * Renders the dead letters of one subscription; returns a function that stops it.
 * @param {HTMLElement} main
 * @param {string} subscriptionId
 */
export function renderDeadLetters(main, subscriptionId) {
  const path = `subscriptions/${encodeURIComponent(subscriptionId)}`;
  /** What the buttons and messages call the subscription: its URL once read. */
  let target = subscriptionId;
  const heading = h('h2', {}, `Dead letters of ${subscriptionId}`);
  const shell = tableShell(`Dead letters of ${subscriptionId}`, HEADERS, true);
  // Where the keyboard focus goes when the last dead letter was sent again from its row.
  shell.table.setAttribute('tabindex', '-1');
  const loadingRow = emptyRow(HEADERS.length, 'Loading dead letters…');
  shell.body.append(loadingRow);

  /**
   * @param {string} label said once done
   * @param {() => Promise<string | void>} action its result, when it has one, is said instead
   */
  const run = async (label, action) => {
    try {
      say((await action()) ?? label);
    } catch (error) {
      say(`${label} failed: ${/** @type {Error} */ (error).message}`, true);
    }
    await poller.now();
  };

  /** @param {any} delivery */
  const redeliverOne = (delivery) =>
    run(`Event ${delivery.eventId} sent again to ${target}`, async () => {
      const sent = await api('POST', `events/${encodeURIComponent(delivery.eventId)}/replay`, {
        subscriptionId,
      });
      const ids = sent.deliveries.map((/** @type {any} */ d) => d.id).join(', ');
      return `Event ${delivery.eventId} sent again to ${target} as delivery ${ids}`;
    });

  const redeliverAll = async () => {
    const confirmed = await confirmAction({
      title: 'Redeliver every dead letter?',
      message: `Every delivery to ${target} the bridge keeps dead-lettered is sent again, oldest first, including any sent again one by one here already and any older than the list below shows. The subscription must be enabled.`,
      action: 'Redeliver all',
    });
    if (!confirmed) return;
    await run(`Dead letters of ${target} sent again`, async () => {
      const { deliveries } = await api('POST', `${path}/redeliver`, {
        since: EVERY_DEAD_LETTER_SINCE,
      });
      return `${deliveries.length} dead letters of ${target} sent again`;
    });
  };

  /** @param {any} entry `{ delivery, attempts }` */
  function deadLetterRow({ delivery }) {
    return h(
      'tr',
      { 'data-item': delivery.id },
      h(
        'td',
        {},
        h('a', { href: `#/events/${encodeURIComponent(delivery.eventId)}` }, delivery.eventId),
      ),
      h('td', {}, time(delivery.deadAt ?? delivery.updatedAt)),
      h('td', {}, delivery.deadReason ?? '—'),
      h('td', {}, String(delivery.attempts)),
      h(
        'td',
        {},
        h(
          'button',
          {
            type: 'button',
            'data-focus': 'redeliver',
            'aria-label': `Redeliver event ${delivery.eventId} to ${target}`,
            onclick: () => redeliverOne(delivery),
          },
          'Redeliver',
        ),
      ),
    );
  }

  async function load() {
    const [subscription, { deliveries }] = await Promise.all([
      target === subscriptionId ? api('GET', path).catch(() => undefined) : undefined,
      api('GET', `deliveries${query({ subscription: subscriptionId, limit: DELIVERIES_READ })}`),
    ]).catch((error) => {
      failedPlaceholder(loadingRow, 'Dead letters', error);
      throw error;
    });
    if (subscription?.url) {
      target = subscription.url;
      replace(heading, `Dead letters of ${target}`);
    }
    const dead = stillDeadLettered(deliveries);
    // A dead letter sent again from its row leaves the list: the focus goes on to the next
    // one's Redeliver (focus.js), or to the table once none is left.
    keepingFocus(
      shell.body,
      () => {
        if (dead.length === 0) replace(shell.body, emptyRow(HEADERS.length, 'No dead letters'));
        else
          keyedChildren(
            shell.body,
            dead,
            (/** @type {any} */ entry) => `${entry.delivery.id}:${target}`,
            deadLetterRow,
          );
      },
      shell.table,
    );
  }

  replace(
    main,
    heading,
    h(
      'p',
      { class: 'muted' },
      `Deliveries whose retries ran out or were refused, among its newest ${DELIVERIES_READ}, and not sent again since. `,
      h(
        'a',
        { href: `#/deliveries?subscription=${encodeURIComponent(subscriptionId)}` },
        'Every delivery',
      ),
    ),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', onclick: redeliverAll }, 'Redeliver all dead letters'),
    ),
    h('div', { class: 'scroll' }, shell.table),
  );
  const poller = every(load, DEAD_LETTERS_POLL_MS);
  return poller.stop;
}
