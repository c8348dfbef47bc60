/** The admin API's OpenAPI document, fetched as every call is (with the admin token, if any). */

import { api } from './api.js';
import { failedPlaceholder, h, replace, say, table } from './dom.js';

const METHODS = ['get', 'post', 'patch', 'delete'];

/**
 * Renders the API page: its operations and the document itself. A link to /openapi.json
 * would be a navigation, which cannot carry the token: behind BRIDGE_ADMIN_TOKEN it gets 401.
 * @param {HTMLElement} main
 * @returns {() => void} nothing to stop: the page does not poll
 */
export function renderApi(main) {
  const loading = h('p', {}, 'Loading the OpenAPI document…');
  replace(main, h('h2', {}, 'API'), loading);
  api('GET', 'openapi.json')
    .then((document) => {
      /** @type {Record<string, Record<string, { summary?: string }>>} */
      const paths = document.paths ?? {};
      const rows = Object.entries(paths).flatMap(([path, operations]) =>
        METHODS.filter((method) => operations[method]).map((method) => [
          h('code', {}, method.toUpperCase()),
          h('code', {}, path),
          operations[method]?.summary ?? '',
        ]),
      );
      replace(
        main,
        h('h2', {}, 'API'),
        h(
          'p',
          {},
          'The admin API as an OpenAPI ',
          String(document.openapi ?? ''),
          ' document, served at ',
          h('code', {}, '/openapi.json'),
          '.',
        ),
        h('div', { class: 'scroll' }, table('Operations', ['Method', 'Path', 'Summary'], rows)),
        h(
          'details',
          {},
          h('summary', {}, 'The document'),
          h('pre', { class: 'json' }, JSON.stringify(document, null, 2)),
        ),
      );
    })
    .catch((/** @type {Error} */ error) => {
      failedPlaceholder(loading, 'The OpenAPI document', error);
      say(error.message, true);
    });
  return () => {};
}
