import type { z } from 'zod';

/**
 * Why an empty item of a comma-separated list is refused: a doubled comma (a template that
 * joined an empty value) or one at either end is a typo, and dropping it silently would run
 * with a list other than the one written. No list allows it, a trailing comma included.
 */
export const EMPTY_ITEM_MESSAGE =
  'is empty (two commas in a row, or one at either end): remove the extra comma';

/**
 * Splits comma-separated text into its trimmed items, empty ones kept in their place so that
 * an item's index is its place in the text; blank text is no item at all. Pure.
 * @example splitCommaList('a, b,,c') // ['a', 'b', '', 'c']
 * @example splitCommaList(' ') // []
 */
export function splitCommaList(text: string): string[] {
  if (text.trim() === '') return [];
  return text.split(',').map((part) => part.trim());
}

/**
 * The trimmed items of comma-separated text for a zod `.transform`, each empty item an issue
 * at its place ({@link EMPTY_ITEM_MESSAGE}, path `[index]` below the field, e.g.
 * `POLL_ENTITIES[1]`), which stops the parse before the items are checked.
 * @example z.string().transform(commaItems).pipe(z.array(EntityTypeSchema))
 */
export function commaItems(text: string, context: z.RefinementCtx): string[] {
  const items = splitCommaList(text);
  for (const [index, item] of items.entries()) {
    if (item === '')
      context.addIssue({ code: 'custom', path: [index], message: EMPTY_ITEM_MESSAGE, input: text });
  }
  return items;
}

/**
 * For `z.preprocess`: comma-separated text (`'a, b,c'`) becomes its list of items, an empty
 * item refused at its place as {@link commaItems} does; other values pass unchanged, so an
 * array is accepted too.
 * @example z.preprocess(splitCommaText, z.array(ExportIdSchema))
 */
export function splitCommaText(value: unknown, context: z.RefinementCtx): unknown {
  return typeof value === 'string' ? commaItems(value, context) : value;
}
