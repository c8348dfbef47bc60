/** Subscriptions: add (the secret is shown once), health at a glance, and every action. */

import { api } from './api.js';
import { confirmAction } from './confirm.js';
import {
  badge,
  emptyRow,
  failedPlaceholder,
  h,
  keyedChildren,
  replace,
  say,
  tableShell,
} from './dom.js';
import { focusAt, focusLost, focusPlace, keepingFocus } from './focus.js';
import { healthReadDue, readEveryHealth } from './health-pages.js';
import { every } from './poll.js';
import { readEveryStream } from './streams-pages.js';
import { subscriptionActions, subscriptionNames } from './subscription-actions.js';
import { healthCell, secretPanel } from './subscription-parts.js';

const SUBSCRIPTIONS_POLL_MS = 10_000;
const HEADERS = ['Endpoint', 'Events', 'State', 'Health', 'Actions'];

/**
 * Renders the subscriptions page; returns a function that stops it.
 * @param {HTMLElement} main
 */
export function renderSubscriptions(main) {
  const secretBox = h('div', {});
  const shell = tableShell('Subscriptions', HEADERS, true);
  // Focused when the row of the focused control is removed and no other is left.
  shell.table.setAttribute('tabindex', '-1');
  const loadingRow = emptyRow(HEADERS.length, 'Loading subscriptions…');
  shell.body.append(loadingRow);
  const listBox = h('div', { class: 'scroll' }, shell.table);
  /** @type {WeakMap<Element, HTMLElement>} */
  const healthCells = new WeakMap();
  /** @type {Map<string, any>} the health of each subscription as last read, by its id */
  let lastHealth = new Map();
  /** @type {Map<string, string>} what each subscription's controls call it, by its id */
  let names = new Map();
  /** @type {{ pages: number, readAtMs: number } | undefined} the last read of the health */
  let healthRead;
  /**
   * The entity types a resync may name, read once the page opens: they change only with the
   * connections, and `GET /streams` lists every stream (13,000 for 1,000 hotels, in pages).
   * @type {string[] | undefined}
   */
  let entityTypes;

  /** @type {import('./subscription-actions.js').RunAction} */
  const run = (label, action, ask) => async (event) => {
    // The dialog gives the focus back to the control that opened it when it closes; a refresh
    // (or the reload after another action) may have redrawn its row meanwhile, when the focus
    // was in the dialog: the focus is then given to the same action of the row as it is now.
    const origin = focusPlace(shell.body, event?.currentTarget);
    if (ask) {
      const confirmed = await confirmAction(ask);
      if (origin && focusLost()) focusAt(shell.body, origin, shell.table);
      if (!confirmed) return;
    }
    try {
      await action();
      say(label);
    } catch (error) {
      say(`${label} failed: ${/** @type {Error} */ (error).message}`, true);
    }
    await poller.now();
  };

  async function load() {
    const [{ subscriptions }, streams] = await Promise.all([
      api('GET', 'subscriptions'),
      entityTypes ? undefined : readEveryStream((path) => api('GET', path)),
    ]).catch((error) => {
      failedPlaceholder(loadingRow, 'Subscriptions', error);
      throw error;
    });
    entityTypes ??= [
      ...new Set((streams?.streams ?? []).map((/** @type {any} */ s) => s.entityType)),
    ].sort();
    if (subscriptions.length === 0) {
      keepingFocus(
        shell.body,
        () => replace(shell.body, emptyRow(HEADERS.length, 'No subscriptions yet: add one above')),
        shell.table,
      );
    } else {
      // Rows of unchanged subscriptions stay, so a focused button or a chosen entity type survives;
      // in a row redrawn (rotated, disabled), the focus stays on the same action, and moves to
      // the same action of the next row when its row is removed.
      // A row is redrawn when its name changes too (another subscription took or left its URL).
      names = subscriptionNames(subscriptions);
      keepingFocus(
        shell.body,
        () =>
          keyedChildren(
            shell.body,
            subscriptions,
            (s) => JSON.stringify([s, names.get(s.id)]),
            subscriptionRow,
          ),
        shell.table,
      );
    }
    // Every subscription's health in one request (one each was refused past ~40 in AWS), or one
    // a page of 200 past that (once a minute then), read once the rows are drawn: it takes
    // seconds past a few hundred subscriptions, and a row an action changed showed its old state
    // until then. A redrawn row shows the last health read.
    // When it fails, the list is still shown and the failure said (by the poller).
    /** @type {Error | undefined} */
    let healthFailure;
    if (healthReadDue(healthRead, Date.now())) {
      const health = await readEveryHealth((path) => api('GET', path)).catch(
        (/** @type {Error} */ error) => {
          healthFailure = error;
          return undefined;
        },
      );
      // A failed read shows no health, and is made again at the next refresh.
      healthRead = health && { pages: health.pages, readAtMs: Date.now() };
      lastHealth = new Map(
        (health?.health ?? []).map((/** @type {any} */ one) => [one.subscriptionId, one]),
      );
    }
    // By the rows shown now: a refresh after an action may have redrawn some meanwhile.
    for (const row of shell.body.children) {
      const cell = healthCells.get(row);
      if (cell) replace(cell, healthCell(lastHealth.get(row.getAttribute('data-item') ?? '')));
    }
    if (healthFailure) throw new Error(`Health could not be read: ${healthFailure.message}`);
  }

  /** @param {any} s */
  function subscriptionRow(s) {
    const health = h('td', {}, lastHealth.has(s.id) ? healthCell(lastHealth.get(s.id)) : null);
    const row = h(
      'tr',
      { 'data-item': s.id },
      h(
        'td',
        {},
        h('strong', { class: 'url' }, s.url),
        h('br'),
        h('small', {}, s.description ?? s.id),
      ),
      h('td', {}, h('code', {}, s.events.join(', '))),
      h(
        'td',
        {},
        s.enabled
          ? badge('enabled', 'ok')
          : badge(`disabled${s.disabledReason ? `: ${s.disabledReason}` : ''}`, 'bad'),
      ),
      health,
      h(
        'td',
        {},
        subscriptionActions(s, {
          name: names.get(s.id) ?? s.url,
          entityTypes: entityTypes ?? [],
          run,
          showSecret: (title, secret) => replace(secretBox, secretPanel(title, secret)),
        }),
      ),
    );
    healthCells.set(row, health);
    return row;
  }

  const form = h(
    'form',
    {
      class: 'add-form',
      'aria-labelledby': 'add-title',
      onsubmit: async (/** @type {SubmitEvent} */ e) => {
        e.preventDefault();
        const data = new FormData(/** @type {HTMLFormElement} */ (e.target));
        const description = String(data.get('description') ?? '').trim();
        try {
          const created = await api('POST', 'subscriptions', {
            url: String(data.get('url') ?? '').trim(),
            events: String(data.get('events') ?? '').trim() || '*',
            ...(description ? { description } : {}),
          });
          replace(secretBox, secretPanel(`Subscription ${created.id} added`, created.secret));
          /** @type {HTMLFormElement} */ (e.target).reset();
          say(`Subscription ${created.id} added`);
          await poller.now();
        } catch (error) {
          say(`Adding failed: ${/** @type {Error} */ (error).message}`, true);
        }
      },
    },
    h('h2', { id: 'add-title' }, 'Add a subscription'),
    h('label', { for: 'sub-url' }, 'URL'),
    h('input', {
      id: 'sub-url',
      name: 'url',
      type: 'url',
      required: true,
      placeholder: 'https://example.com/webhooks',
    }),
    h('label', { for: 'sub-events' }, 'Events'),
    h('input', {
      id: 'sub-events',
      name: 'events',
      placeholder: '* or customer.*,resource.updated',
    }),
    h('label', { for: 'sub-description' }, 'Description'),
    h('input', { id: 'sub-description', name: 'description' }),
    h('button', { type: 'submit' }, 'Add subscription'),
  );

  replace(
    main,
    form,
    secretBox,
    h(
      'section',
      { 'aria-labelledby': 'subs-title' },
      h('h2', { id: 'subs-title' }, 'Subscriptions'),
      listBox,
    ),
  );
  const poller = every(load, SUBSCRIPTIONS_POLL_MS);
  return poller.stop;
}
