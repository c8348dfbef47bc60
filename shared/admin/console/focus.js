/**
 * Keeping the keyboard focus on a redrawn table: a control is found again by its item
 * (`data-item`, e.g. a subscription's id) and its place in it (`data-focus`, e.g. `enable`).
 */

/**
 * Where `element` sits in `container`: its item's id, its place in the item, and the item's
 * position among the container's items; undefined when it is no such control.
 * @typedef {{ itemId: string, place: string, index: number }} FocusPlace
 * @param {Element} container
 * @param {EventTarget | Element | null | undefined} element
 * @returns {FocusPlace | undefined}
 */
export function focusPlace(container, element) {
  if (!(element instanceof Element) || !container.contains(element)) return undefined;
  const place = element.getAttribute('data-focus');
  const item = element.closest('[data-item]');
  const itemId = item?.getAttribute('data-item');
  if (!item || place === null || itemId === null || itemId === undefined) return undefined;
  return { itemId, place, index: [...container.querySelectorAll('[data-item]')].indexOf(item) };
}

/**
 * Whether nothing has the focus (the page's body has it): the focused control was removed,
 * or a dialog closed and could not give it back.
 */
export function focusLost() {
  return document.activeElement === null || document.activeElement === document.body;
}

/**
 * Focuses the control at `where` in `container` as it is now: the same place in the item of the
 * same id; when that item is gone, the same place in the item that took its position (the next
 * one), or the last; when no item is left or that control cannot take the focus, `fallback`.
 * @param {Element} container
 * @param {FocusPlace} where
 * @param {HTMLElement} [fallback] e.g. the table (with `tabindex="-1"`)
 */
export function focusAt(container, where, fallback) {
  const items = [...container.querySelectorAll('[data-item]')];
  const item =
    items.find((element) => element.getAttribute('data-item') === where.itemId) ??
    items[Math.min(where.index, items.length - 1)];
  const control = [...(item?.querySelectorAll('[data-focus]') ?? [])].find(
    (element) => element.getAttribute('data-focus') === where.place,
  );
  if (control instanceof HTMLElement) control.focus();
  if (document.activeElement !== control) fallback?.focus();
}

/**
 * Runs `redraw`, which may replace children of `container` (keyedChildren replaces the element
 * of an item that changed, and removes those gone); when the focused element was in one it
 * replaced or removed, focuses the same place again (see {@link focusAt}): a keyboard operator
 * who disabled a subscription is on its Enable button, one who removed it on the next one's
 * Remove, not back at the page's top.
 * @param {Element} container
 * @param {() => void} redraw
 * @param {HTMLElement} [fallback] focused when no item is left
 */
export function keepingFocus(container, redraw, fallback) {
  const active = document.activeElement;
  const where = focusPlace(container, active);
  redraw();
  if (where && !active?.isConnected) focusAt(container, where, fallback);
}
