/** Types of subscription-actions.js (a browser module of the console, also tested under Node). */

/**
 * Runs an action of the page when its control is used (the event's `currentTarget`, whose focus
 * it keeps), asking `ask` first when given.
 */
export type RunAction = (
  label: string,
  action: () => Promise<void>,
  ask?: { title: string; message: string; action: string },
) => (event?: Event) => Promise<void>;

/** The row's actions, each control named after the subscription (`name`). */
export function subscriptionActions(
  s: unknown,
  page: {
    name: string;
    entityTypes: string[];
    run: RunAction;
    showSecret: (title: string, secret: string) => void;
  },
): HTMLElement;

/**
 * What the controls of each subscription call it, by id: its URL, and its id after it when
 * another subscription has the same URL.
 */
export function subscriptionNames(
  subscriptions: { id: string; url: string }[],
): Map<string, string>;
