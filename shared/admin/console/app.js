/** The console's entry: a hash router over its views, and the admin-token prompt. */

import { isSendableToken, onUnauthorized, storeToken } from './api.js';
import { deliveriesPanel } from './deliveries.js';
import { h, replace, say } from './dom.js';
import { renderApi } from './view-api.js';
import { renderBackfills } from './view-backfills.js';
import { renderConnections } from './view-connections.js';
import { renderDeadLetters } from './view-dead-letters.js';
import { renderEvent } from './view-event.js';
import { renderOverview } from './view-overview.js';
import { renderSubscriptions } from './view-subscriptions.js';

/** @type {(() => void) | undefined} */
let stopView;

/** @type {Promise<boolean> | undefined} */
let tokenAsked;
let tokenDeclined = false;

/**
 * Asks for the admin token in a modal dialog; resolves true once one is stored. Calls
 * refused at the same time share one prompt.
 * @param {string} [refused] why the token entered last was not taken
 */
function askForToken(refused) {
  // Once the operator cancels, polls refused later do not prompt again until a reload.
  if (tokenDeclined) return Promise.resolve(false);
  tokenAsked ??= promptForToken(refused).then((saved) => {
    tokenAsked = undefined;
    tokenDeclined = !saved;
    if (!saved) say('The API needs its admin token: reload the page to enter it', true);
    return saved;
  });
  return tokenAsked;
}

/**
 * Shows the token dialog until the operator enters a token a header can carry, or cancels.
 * @param {string} [error] why the last token entered was not taken
 * @returns {Promise<boolean>}
 */
function promptForToken(error) {
  const dialog = /** @type {HTMLDialogElement} */ (document.getElementById('token-dialog'));
  const input = /** @type {HTMLInputElement} */ (document.getElementById('token-input'));
  const cancel = /** @type {HTMLButtonElement} */ (document.getElementById('token-cancel'));
  const errorLine = /** @type {HTMLElement} */ (document.getElementById('token-error'));
  input.value = '';
  errorLine.textContent = error ?? '';
  errorLine.hidden = error === undefined;
  return new Promise((resolve) => {
    cancel.onclick = () => dialog.close('cancel');
    dialog.addEventListener(
      'close',
      () => {
        const token = input.value.trim();
        if (dialog.returnValue !== 'save' || token === '') return resolve(false);
        if (!isSendableToken(token))
          return resolve(
            promptForToken(
              'That token holds a character BRIDGE_ADMIN_TOKEN cannot (it must be printable ASCII): enter it again',
            ),
          );
        storeToken(token);
        resolve(true);
      },
      { once: true },
    );
    dialog.returnValue = '';
    dialog.showModal();
  });
}

/** @param {HTMLElement} main */
function renderDeliveries(main, /** @type {URLSearchParams} */ params) {
  const subscription = params.get('subscription') ?? undefined;
  const event = params.get('event') ?? undefined;
  const panel = deliveriesPanel({
    ...(subscription ? { subscription } : {}),
    ...(event ? { event } : {}),
  });
  const scope = subscription ? ` of ${subscription}` : event ? ` of ${event}` : '';
  replace(main, h('h2', {}, `Deliveries${scope}`), panel.element);
  return panel.stop;
}

/**
 * A path segment of the hash decoded, or as it is when it holds a malformed escape (a link
 * typed or cut short): decodeURIComponent throws on those, which stopped the page.
 * @param {string} segment
 */
function decodedSegment(segment) {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function route() {
  stopView?.();
  // What the status line said of the last view (an action's outcome, a failed read) is not of
  // this one; a failure that goes on is said again by this view's own reads.
  say('');
  const main = /** @type {HTMLElement} */ (document.getElementById('main'));
  const [path, search = ''] = location.hash.replace(/^#/, '').split('?');
  const params = new URLSearchParams(search);
  const eventMatch = /^\/events\/(.+)$/.exec(path ?? '');
  if (eventMatch) stopView = renderEvent(main, decodedSegment(eventMatch[1] ?? ''));
  else if (path === '/subscriptions') stopView = renderSubscriptions(main);
  else if (path === '/deliveries') stopView = renderDeliveries(main, params);
  else if (path === '/dead-letters' && params.get('subscription'))
    stopView = renderDeadLetters(main, params.get('subscription') ?? '');
  else if (path === '/connections') stopView = renderConnections(main);
  else if (path === '/backfills') stopView = renderBackfills(main);
  else if (path === '/api') stopView = renderApi(main);
  else stopView = renderOverview(main);
  for (const link of document.querySelectorAll('nav a')) {
    const target = link.getAttribute('href') ?? '';
    const current = target === `#${path || '/'}` || (target === '#/' && !path);
    if (current) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

onUnauthorized(askForToken);
window.addEventListener('hashchange', route);
route();
