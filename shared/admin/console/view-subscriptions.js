/** Subscriptions: add (the secret is shown once), health at a glance, and every action. */

import { api } from './api.js';
import { confirmAction } from './confirm.js';
import {
  badge,
  emptyRow,
  failedPlaceholder,
  h,
  keepingFocus,
  keyedChildren,
  replace,
  say,
  tableShell,
} from './dom.js';
import { every } from './poll.js';
import { readEveryStream } from './streams-pages.js';
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
  const loadingRow = emptyRow(HEADERS.length, 'Loading subscriptions…');
  shell.body.append(loadingRow);
  const listBox = h('div', { class: 'scroll' }, shell.table);
  /** @type {WeakMap<Element, HTMLElement>} */
  const healthCells = new WeakMap();
  /** @type {Map<string, any>} the health of each subscription as last read, by its id */
  let lastHealth = new Map();
  /**
   * The entity types a resync may name, read once the page opens: they change only with the
   * connections, and `GET /streams` lists every stream (13,000 for 1,000 hotels, in pages).
   * @type {string[] | undefined}
   */
  let entityTypes;

  /**
   * @param {string} label
   * @param {() => Promise<void>} action
   * @param {Parameters<typeof confirmAction>[0]} [ask] a confirmation asked first; nothing is sent without it
   */
  const run = (label, action, ask) => async () => {
    if (ask && !(await confirmAction(ask))) return;
    try {
      await action();
      say(label);
    } catch (error) {
      say(`${label} failed: ${/** @type {Error} */ (error).message}`, true);
    }
    await poller.now();
  };

  /**
   * Whether the subscription takes events of `entityType` (what a resync may send it).
   * @param {any} s
   * @param {string} entityType
   */
  const takesEntity = (s, entityType) =>
    s.events.some((/** @type {string} */ pattern) => {
      const entity = pattern.split('.')[0];
      return entity === '*' || entity === entityType;
    });

  /** @param {any} s */
  function actions(s) {
    const path = `subscriptions/${encodeURIComponent(s.id)}`;
    const resyncable = (entityTypes ?? []).filter((t) => takesEntity(s, t));
    // None for a subscription to operational events only (delivery.*, subscription.disabled):
    // a resync would send `entities: ['']`, which the API refuses.
    const entity = h(
      'select',
      {
        'aria-label': `Entity type to resync to ${s.url}`,
        disabled: resyncable.length === 0,
        'data-focus': 'entity',
      },
      ...resyncable.map((t) => h('option', { value: t }, t)),
    );
    return h(
      'div',
      { class: 'actions' },
      h(
        'button',
        {
          type: 'button',
          'data-focus': 'ping',
          onclick: run(`Ping sent to ${s.url}`, () => api('POST', `${path}/ping`)),
        },
        'Ping',
      ),
      h(
        'button',
        {
          type: 'button',
          'data-focus': 'rotate',
          onclick: run(
            `Secret of ${s.url} rotated`,
            async () =>
              replace(
                secretBox,
                secretPanel(
                  `New secret of ${s.url}`,
                  (await api('POST', `${path}/rotate-secret`)).secret,
                ),
              ),
            {
              title: 'Rotate the secret?',
              message: `A new secret signs the webhooks to ${s.url} (it is shown once); the old secret keeps signing beside it for 24 hours, so the receiver can switch without dropping a webhook.`,
              action: 'Rotate secret',
            },
          ),
        },
        'Rotate secret',
      ),
      h(
        'button',
        {
          type: 'button',
          // Disable and Enable are one place: the one shown after the other is focused.
          'data-focus': 'enable',
          onclick: run(
            `${s.url} ${s.enabled ? 'disabled' : 'enabled'}`,
            () => api('PATCH', path, { enabled: !s.enabled }),
            s.enabled
              ? {
                  title: 'Disable the subscription?',
                  message: `${s.url} gets no more webhooks: events detected while it is disabled make no delivery for it, and its pending deliveries are dead-lettered when their next attempt comes up. Enable resumes it with its next event.`,
                  action: 'Disable',
                }
              : undefined,
          ),
        },
        s.enabled ? 'Disable' : 'Enable',
      ),
      entity,
      h(
        'button',
        {
          type: 'button',
          'data-focus': 'resync',
          disabled: resyncable.length === 0,
          title:
            resyncable.length === 0
              ? 'It takes no event of any stream: nothing to resync'
              : undefined,
          onclick: run(`Resync sent to ${s.url}`, () =>
            api('POST', `${path}/resync`, {
              entities: [/** @type {HTMLSelectElement} */ (entity).value],
            }),
          ),
        },
        'Resync',
      ),
      h(
        'button',
        {
          type: 'button',
          'data-focus': 'remove',
          onclick: run(`${s.url} removed`, () => api('DELETE', path), {
            title: 'Remove the subscription?',
            message: `${s.url} gets no more webhooks, and its signing secret is deleted: this cannot be undone (adding the URL again makes a new subscription, with a new secret).`,
            action: 'Remove',
          }),
        },
        'Remove',
      ),
      h(
        'a',
        {
          href: `#/deliveries?subscription=${encodeURIComponent(s.id)}`,
          'data-focus': 'deliveries',
        },
        'Deliveries',
      ),
      h(
        'a',
        {
          href: `#/dead-letters?subscription=${encodeURIComponent(s.id)}`,
          'data-focus': 'dead-letters',
        },
        'Dead letters',
      ),
    );
  }

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
      replace(shell.body, emptyRow(HEADERS.length, 'No subscriptions yet: add one above'));
    } else {
      // Rows of unchanged subscriptions stay, so a focused button or a chosen entity type survives;
      // in a row redrawn (rotated, disabled), the focus stays on the same action.
      keepingFocus(shell.body, () =>
        keyedChildren(shell.body, subscriptions, (s) => JSON.stringify(s), subscriptionRow),
      );
    }
    // Every subscription's health in one request (one each was refused past ~40 in AWS), read
    // once the rows are drawn: it takes seconds past a few hundred subscriptions, and a row an
    // action changed showed its old state until then. A redrawn row shows the last health read.
    // When it fails, the list is still shown and the failure said (by the poller).
    /** @type {Error | undefined} */
    let healthFailure;
    const health = await api('GET', 'subscriptions/health').catch((/** @type {Error} */ error) => {
      healthFailure = error;
      return undefined;
    });
    lastHealth = new Map(
      (health?.health ?? []).map((/** @type {any} */ one) => [one.subscriptionId, one]),
    );
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
      h('td', {}, actions(s)),
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
