/** Types of comma-field.js (a browser module of the console, also tested under Node). */

/** The API's EMPTY_ITEM_MESSAGE (shared/comma-list.ts), word for word. */
export const EMPTY_ITEM_MESSAGE: string;

/** The items of a form field's comma-separated text, or why it is refused (an empty item). */
export function readCommaField(
  text: FormDataEntryValue | string | null,
  label: string,
): { items: string[] } | { problem: string };
