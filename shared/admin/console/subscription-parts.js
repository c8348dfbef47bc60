/** Parts of the subscriptions page: the secret shown once, and health at a glance. */

import { badge, h, say, time } from './dom.js';

/**
 * A panel with a secret and the warning that it is not shown again.
 * @param {string} title
 * @param {string} secret
 */
export function secretPanel(title, secret) {
  const copy = () =>
    navigator.clipboard?.writeText(secret).then(
      () => say('Secret copied'),
      () => say('Copy refused by the browser', true),
    );
  return h(
    'div',
    { class: 'secret', role: 'alert' },
    h('h3', {}, title),
    h('p', {}, 'Store this signing secret now: it is shown only this once.'),
    h(
      'p',
      {},
      h('code', { class: 'secret-value' }, secret),
      ' ',
      h('button', { type: 'button', onclick: copy }, 'Copy'),
    ),
  );
}

/** @param {any} health */
export function healthCell(health) {
  if (!health) return '—';
  // The rate reads the newest 50 deliveries; the failures in a row are counted since the last
  // success, however long ago: said apart, so 0 % of 5 beside 1,514 in a row is not a puzzle.
  const rate =
    health.successRate === null
      ? 'no attempts among the newest 50 deliveries'
      : `${Math.round(health.successRate * 100)}% of ${health.attempts} attempts (newest 50 deliveries)`;
  return h(
    'span',
    { class: 'health' },
    badge(
      rate,
      health.successRate === null
        ? 'muted'
        : health.successRate >= 0.95
          ? 'ok'
          : health.successRate >= 0.5
            ? 'warn'
            : 'bad',
    ),
    health.lastFailureAt
      ? h('small', {}, 'Last failure ', time(health.lastFailureAt), ` (${health.lastFailure})`)
      : null,
    health.pausedUntil ? h('small', {}, 'Paused until ', time(health.pausedUntil)) : null,
    health.consecutiveFailures
      ? h(
          'small',
          {},
          `${health.consecutiveFailures} failed attempts in a row since the last success`,
        )
      : null,
  );
}
