import type { EndpointState } from './store.ts';

/**
 * The newest state of each endpoint (per subscription) that this process has read or stored,
 * by version: every batch of the process goes by its own copy, read when it first needed it,
 * and another batch may have stored a newer one since (a run of failures announced, a
 * recovery under way). Health is folded into the newer of the two, so an outcome is never
 * judged on a copy older than what the process already knows (see recordHealth). One small
 * entry per subscription the process delivered to.
 */
export class KnownEndpointStates {
  readonly #states = new Map<string, EndpointState>();

  /** Keeps `state` when it is newer (a higher version) than the one known for its subscription. */
  note(state: EndpointState): void {
    const known = this.#states.get(state.subscriptionId);
    if (known === undefined || (state.version ?? 0) > (known.version ?? 0))
      this.#states.set(state.subscriptionId, state);
  }

  /** The newer of `state` and the one known for its subscription (`state` on a tie). */
  newest(state: EndpointState): EndpointState {
    const known = this.#states.get(state.subscriptionId);
    return known !== undefined && (known.version ?? 0) > (state.version ?? 0) ? known : state;
  }
}
