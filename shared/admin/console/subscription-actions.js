/**
 * The actions of one subscription's row. Each control's accessible name says which
 * subscription it acts on (`Ping https://…`): a screen reader listing the page's buttons heard
 * the same "Ping" once per subscription.
 */

import { api } from './api.js';
import { h } from './dom.js';

/**
 * Runs an action of the page when its control is used (the event's `currentTarget`, whose
 * focus it keeps): asks `ask` first when given (nothing is sent without it), says `label` once
 * done (or why it failed), then reads the page again.
 * @typedef {(label: string, action: () => Promise<void>, ask?: { title: string, message: string, action: string }) => (event?: Event) => Promise<void>} RunAction
 */

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

/**
 * The row's actions: ping, rotate the secret, disable or enable, resync an entity type, remove,
 * and links to its deliveries and dead letters.
 * @param {any} s the subscription
 * @param {{ name: string, entityTypes: string[], run: RunAction, showSecret: (title: string, secret: string) => void }} page
 *   `name` what the controls call it (its URL, with its id when another shares it); `entityTypes` those a resync may name
 */
export function subscriptionActions(s, { name, entityTypes, run, showSecret }) {
  const path = `subscriptions/${encodeURIComponent(s.id)}`;
  const resyncable = entityTypes.filter((t) => takesEntity(s, t));
  // None for a subscription to operational events only (delivery.*, subscription.disabled):
  // a resync would send `entities: ['']`, which the API refuses.
  const entity = h(
    'select',
    {
      'aria-label': `Entity type to resync to ${name}`,
      disabled: resyncable.length === 0,
      'data-focus': 'entity',
    },
    ...resyncable.map((t) => h('option', { value: t }, t)),
  );
  /**
   * A button whose accessible name is its text and the subscription's name.
   * @param {string} text
   * @param {string} focus its place, kept focused when the row is redrawn
   * @param {() => Promise<void>} onclick
   * @param {Record<string, unknown>} [attrs]
   */
  const button = (text, focus, onclick, attrs = {}) =>
    h(
      'button',
      { type: 'button', 'data-focus': focus, 'aria-label': `${text} ${name}`, onclick, ...attrs },
      text,
    );
  return h(
    'div',
    { class: 'actions' },
    button(
      'Ping',
      'ping',
      run(`Ping sent to ${s.url}`, () => api('POST', `${path}/ping`)),
    ),
    button(
      'Rotate secret',
      'rotate',
      run(
        `Secret of ${s.url} rotated`,
        async () =>
          showSecret(`New secret of ${s.url}`, (await api('POST', `${path}/rotate-secret`)).secret),
        {
          title: 'Rotate the secret?',
          message: `A new secret signs the webhooks to ${s.url} (it is shown once); the old secret keeps signing beside it for 24 hours, so the receiver can switch without dropping a webhook.`,
          action: 'Rotate secret',
        },
      ),
      { 'aria-label': `Rotate secret of ${name}` },
    ),
    // Disable and Enable are one place: the one shown after the other is focused.
    button(
      s.enabled ? 'Disable' : 'Enable',
      'enable',
      run(
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
    ),
    entity,
    button(
      'Resync',
      'resync',
      run(`Resync sent to ${s.url}`, () =>
        api('POST', `${path}/resync`, {
          entities: [/** @type {HTMLSelectElement} */ (entity).value],
        }),
      ),
      {
        disabled: resyncable.length === 0,
        title:
          resyncable.length === 0
            ? 'It takes no event of any stream: nothing to resync'
            : undefined,
      },
    ),
    button(
      'Remove',
      'remove',
      run(`${s.url} removed`, () => api('DELETE', path), {
        title: 'Remove the subscription?',
        message: `${s.url} gets no more webhooks, and its signing secret is deleted: this cannot be undone (adding the URL again makes a new subscription, with a new secret).`,
        action: 'Remove',
      }),
    ),
    h(
      'a',
      {
        href: `#/deliveries?subscription=${encodeURIComponent(s.id)}`,
        'data-focus': 'deliveries',
        'aria-label': `Deliveries of ${name}`,
      },
      'Deliveries',
    ),
    h(
      'a',
      {
        href: `#/dead-letters?subscription=${encodeURIComponent(s.id)}`,
        'data-focus': 'dead-letters',
        'aria-label': `Dead letters of ${name}`,
      },
      'Dead letters',
    ),
  );
}

/**
 * What the controls of each subscription call it, by id: its URL, and its id after it when
 * another subscription has the same URL. Pure.
 * @param {any[]} subscriptions
 * @returns {Map<string, string>}
 * @example subscriptionNames([{ id: 'sub_1', url: 'https://a' }]) // Map { 'sub_1' => 'https://a' }
 */
export function subscriptionNames(subscriptions) {
  /** @type {Map<string, number>} */
  const perUrl = new Map();
  for (const s of subscriptions) perUrl.set(s.url, (perUrl.get(s.url) ?? 0) + 1);
  return new Map(
    subscriptions.map((s) => [s.id, (perUrl.get(s.url) ?? 0) > 1 ? `${s.url} (${s.id})` : s.url]),
  );
}
