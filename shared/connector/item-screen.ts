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
