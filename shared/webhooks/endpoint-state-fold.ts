import { type EndpointState, freshEndpointState, type WebhookStore } from './store.ts';

/** Writes of one fold lost to other writers before it gives up (see {@link foldEndpointState}). */
export const ENDPOINT_STATE_TRIES = 5;

/** What a fold makes of an endpoint's state: the next state, and whether it differs at all. */
export interface EndpointStateChange {
  state: EndpointState;
  /** False when the state stays as it is: nothing is written. */
  changed: boolean;
}

/** The fold that {@link foldEndpointState} settled on, and whether its state was written. */
export type FoldedEndpointState<Change extends EndpointStateChange> = Change & {
  /**
   * False when nothing was written: the fold changed nothing, or its writes lost
   * {@link ENDPOINT_STATE_TRIES} times (then `state` is the last fold, unwritten).
   */
  written: boolean;
};

/**
 * Applies `fold` to an endpoint's state and stores the result over the version it was made
 * from, so that no concurrent writer's change is lost (a failure counted in another container,
 * a pause a `429` stored, a success clearing the run). Starts from `known`, the caller's copy,
 * which may be stale: a write made from a stale copy loses, and the fold is applied again to
 * the state read back. After {@link ENDPOINT_STATE_TRIES} lost writes it gives up and returns
 * the last fold unwritten (what won meanwhile is at least as recent). A fold that changes
 * nothing writes nothing. Concurrent folds in one process should be run one at a time per
 * endpoint (`KeyedSerial`): then only other processes' writes make a write lose.
 * @example await foldEndpointState(store, known, (state) => applyOutcome(state, outcome, now, policy))
 */
export async function foldEndpointState<Change extends EndpointStateChange>(
  store: Pick<WebhookStore, 'getEndpointState' | 'putEndpointState'>,
  known: EndpointState,
  fold: (current: EndpointState) => Change,
): Promise<FoldedEndpointState<Change>> {
  const { subscriptionId } = known;
  let current = known;
  let change = fold(current);
  for (let tries = 1; change.changed; tries++) {
    const stored = await store.putEndpointState(change.state, { ifVersion: current.version });
    if (stored) return { ...change, state: stored, written: true };
    if (tries === ENDPOINT_STATE_TRIES) return { ...change, written: false };
    current = (await store.getEndpointState(subscriptionId)) ?? freshEndpointState(subscriptionId);
    change = fold(current);
  }
  return { ...change, written: false };
}
