import { isJsonObject } from '../json-object.ts';

/**
 * A look at the raw items of one paginated response before they are validated: it returns the
 * items to validate and hand back, and passes over the others (neither validated nor returned,
 * though they still count for the page's length, so the walk ends where it would have). The
 * poller's overlap memory passes over records it stored byte for byte already. One screen
 * serves one request: a response screened again (a retry) replaces what it saw before.
 */
export interface ItemScreen {
  screen(items: readonly unknown[]): unknown[];
  /**
   * Looks at a 200's body as text first, where it can: the body with its items left out, when
   * it passes over every one of them (then neither the items nor the rest are looked at again);
   * undefined to have the body parsed and its items screened as usual.
   */
  screenText?(text: string, itemsKey: string): ScreenedText | undefined;
}

/** A response text whose items a screen passed over, all of them. */
export interface ScreenedText {
  /** The response's text with its items array emptied (`[]`). */
  text: string;
  /** How many items it held. */
  passedOver: number;
}

/** A response body with its items screened, and how many of them the screen passed over. */
export interface ScreenedBody {
  body: unknown;
  passedOver: number;
}

/**
 * Runs `screen` over the items under `itemsKey` of a raw response body. A body without such an
 * array is left as it is (validation then judges it). Pure apart from the screen.
 */
export function screenBody(body: unknown, itemsKey: string, screen: ItemScreen): ScreenedBody {
  if (!isJsonObject(body)) return { body, passedOver: 0 };
  const items = body[itemsKey];
  if (!Array.isArray(items)) return { body, passedOver: 0 };
  const kept = screen.screen(items);
  return { body: { ...body, [itemsKey]: kept }, passedOver: items.length - kept.length };
}
