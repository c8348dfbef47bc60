/** Small DOM helpers: elements from data, never from HTML strings. */

export { keepingFocus } from './focus.js';

/**
 * Creates an element. Attributes starting with `on` add listeners; `false`/`undefined`
 * attributes are left out; children are nodes or text.
 * @param {string} tag
 * @param {Record<string, unknown>} [attrs]
 * @param {...(Node | string | number | null | undefined | false | Array<Node | string | null | undefined | false>)} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false || value === null) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2).toLowerCase(), /** @type {EventListener} */ (value));
    } else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

/**
 * @param {Element} parent
 * @param {unknown[]} children
 */
function append(parent, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/**
 * Replaces an element's children.
 * @param {Element} element
 * @param {...unknown} children
 */
export function replace(element, ...children) {
  element.replaceChildren();
  append(element, children);
}

/**
 * A row of one cell saying the table is empty.
 * @param {number} columns
 * @param {string} text
 */
export function emptyRow(columns, text) {
  return h('tr', {}, h('td', { colspan: columns, class: 'empty' }, text));
}

/**
 * An empty table with a caption and column headers; fill its `body`.
 * @param {string} caption
 * @param {string[]} headers
 * @param {boolean} [hideCaption] keep the caption for screen readers only (a heading says it)
 */
export function tableShell(caption, headers, hideCaption = false) {
  const body = h('tbody', {});
  const element = h(
    'table',
    {},
    h('caption', { class: hideCaption ? 'visually-hidden' : undefined }, caption),
    h('thead', {}, h('tr', {}, ...headers.map((name) => h('th', { scope: 'col' }, name)))),
    body,
  );
  return { table: element, body };
}

/**
 * A table with a caption; `rows` are arrays of cells (nodes or text).
 * @param {string} caption
 * @param {string[]} headers
 * @param {unknown[][]} rows
 * @param {string} [empty] shown in one cell when there are no rows
 * @param {boolean} [hideCaption] keep the caption for screen readers only (a heading says it)
 */
export function table(caption, headers, rows, empty = 'Nothing yet', hideCaption = false) {
  const shell = tableShell(caption, headers, hideCaption);
  if (rows.length === 0) shell.body.append(emptyRow(headers.length, empty));
  for (const cells of rows) {
    shell.body.append(h('tr', {}, ...cells.map((cell) => h('td', {}, /** @type {any} */ (cell)))));
  }
  return shell.table;
}

/**
 * Shows one element per item in `parent`, in order, keeping the element of an item whose
 * key has not changed where it is: focus, a chosen option or a typed value in it survive
 * a refresh. Children without a key (a "loading" line) are removed.
 * @template T
 * @param {Element} parent
 * @param {T[]} items
 * @param {(item: T) => string} keyOf
 * @param {(item: T) => Element} render
 */
export function keyedChildren(parent, items, keyOf, render) {
  /** @type {Map<string, Element>} */
  const previous = new Map();
  for (const child of parent.children) {
    const key = child.getAttribute('data-key');
    if (key !== null) previous.set(key, child);
  }
  items.forEach((item, index) => {
    const key = keyOf(item);
    let node = previous.get(key);
    if (!node) {
      node = render(item);
      node.setAttribute('data-key', key);
    }
    const at = parent.children[index];
    if (at !== node) parent.insertBefore(node, at ?? null);
  });
  // Every kept element now sits before position items.length; the rest are stale.
  while (parent.children.length > items.length) parent.lastElementChild?.remove();
}

/**
 * Says why a view's first read failed in place of its "Loading…" line (a paragraph, or a
 * table's one-cell row), while that line is still shown: the first answer that succeeds
 * replaces it as it would have replaced the loading line. Later failures of a view already
 * shown leave it as it is (the status line says them).
 * @param {Element} placeholder
 * @param {string} what e.g. `Streams`
 * @param {unknown} error
 */
export function failedPlaceholder(placeholder, what, error) {
  if (!placeholder.isConnected) return;
  const line = placeholder.querySelector('td') ?? placeholder;
  line.textContent = `${what} could not be read: ${/** @type {Error} */ (error)?.message ?? String(error)}`;
  line.classList.add('error-text');
}

/**
 * A time as the operator reads it: local time, with the ISO value in a tooltip.
 * @param {string | number | null | undefined} value
 */
export function time(value) {
  if (value === null || value === undefined) return '—';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  const today = date.toDateString() === new Date().toDateString();
  const text = today
    ? date.toLocaleTimeString()
    : date.toLocaleString([], { dateStyle: 'medium', timeStyle: 'medium' });
  return h('time', { datetime: date.toISOString(), title: date.toISOString() }, text);
}

/**
 * Seconds as `45 s`, `3 min`, `2 h`.
 * @param {number | null | undefined} seconds
 */
export function duration(seconds) {
  if (seconds === null || seconds === undefined) return '—';
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

/**
 * A status badge: `kind` picks its colour (ok, warn, bad, muted).
 * @param {string} text
 * @param {'ok' | 'warn' | 'bad' | 'muted'} kind
 */
export function badge(text, kind) {
  return h('span', { class: `badge badge-${kind}` }, text);
}

/**
 * Writes a short message into the page's live status line.
 * @param {string} message
 * @param {boolean} [isError]
 */
export function say(message, isError = false) {
  const status = document.getElementById('status');
  if (!status) return;
  status.textContent = message;
  status.classList.toggle('status-error', isError);
}

/**
 * Clears the status line when it still shows `message` (a later message stays).
 * @param {string} message
 */
export function unsay(message) {
  const status = document.getElementById('status');
  if (!status || status.textContent !== message) return;
  status.textContent = '';
  status.classList.remove('status-error');
}
