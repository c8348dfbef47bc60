/**
 * The console's comma-separated text fields, read as the CLI and the API read them
 * (shared/comma-list.ts): trimmed items, blank text no item at all, an empty item refused.
 */

/** The API's EMPTY_ITEM_MESSAGE (shared/comma-list.ts), word for word; a test keeps them equal. */
export const EMPTY_ITEM_MESSAGE =
  'is empty (two commas in a row, or one at either end): remove the extra comma';

/**
 * The items of a form field's comma-separated text, or why it is refused: an empty item (a
 * doubled comma, or one at either end) is a typo, not an item to drop. Pure.
 * @param {FormDataEntryValue | null} text
 * @param {string} label the field's label, e.g. `Entity types`
 * @returns {{ items: string[] } | { problem: string }}
 * @example readCommaField('customer,,resource', 'Entity types') // { problem: 'Entity types: item 2 is empty (…' }
 * @example readCommaField(',customer,', 'Entity types') // { problem: 'Entity types: item 1 is empty (…; item 3 is empty (…' }
 */
export function readCommaField(text, label) {
  const value = String(text ?? '');
  if (value.trim() === '') return { items: [] };
  const items = value.split(',').map((part) => part.trim());
  // Every empty item is named, in order, as the CLI and the API's variables name them.
  const empty = items.flatMap((item, index) => (item === '' ? [index + 1] : []));
  if (empty.length > 0) {
    const places = empty.map((place) => `item ${place} ${EMPTY_ITEM_MESSAGE}`).join('; ');
    return { problem: `${label}: ${places}` };
  }
  return { items };
}
