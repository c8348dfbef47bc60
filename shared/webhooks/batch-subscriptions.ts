import type { DispatcherDeps } from './dispatcher-deps.ts';
import { endpointOfUrl } from './endpoint-of-url.ts';
import { type EndpointSettings, sharedEndpointSettings } from './endpoint-settings.ts';
import type { Subscription } from './subscription.ts';

/**
 * How long a batch goes by its read of a subscription. The admin API may disable it meanwhile
 * (in AWS from another Lambda, which this process is not told of): a batch that runs longer
 * reads the subscription again before its next request there, so no request goes to it more
 * than about this long after it was disabled, at one read per subscription and this long at
 * most (batches shorter than this read the list once, as before). Within one process (the
 * local run) the admin API tells the batches at once (EndpointScheduler.noteDisabled).
 */
export const SUBSCRIPTION_FRESH_MS = 5_000;

/** What {@link BatchSubscriptions} reads with and asks about disabled subscriptions. */
export type BatchSubscriptionsDeps = Pick<DispatcherDeps, 'store' | 'clock' | 'scheduler'>;

/**
 * One dispatch batch's view of the subscriptions: the list read once per batch (eventually
 * consistent: fine for fan-out), a single subscription read again when the list lacks it, when
 * this process disabled it since, or once the batch's copy is {@link SUBSCRIPTION_FRESH_MS}
 * old, and each URL's endpoint with the settings its subscriptions share.
 */
export class BatchSubscriptions {
  private subscriptionList?: Promise<Map<string, Subscription>>;
  /** The list once read (see {@link sharedEndpoint}). */
  private subscriptionsListed: Map<string, Subscription> | undefined;
  /** Each URL's endpoint and the settings its subscriptions share, as the batch's list has them. */
  private readonly sharedEndpoints = new Map<
    string,
    { endpoint: string; settings: EndpointSettings }
  >();
  /** When the batch read its list of subscriptions (epoch ms). */
  private subscriptionsReadAt: number | undefined;
  /**
   * Subscriptions read again (or disabled) by this batch since its list was read: when, and the
   * process's note of their disabling (EndpointScheduler.disabledAt) as it was then.
   */
  private readonly reread = new Map<string, { at: number; disabledAt: number | undefined }>();
  /** Reads of single subscriptions under way (see {@link subscription}). */
  private readonly readsInFlight = new Map<
    string,
    { read: Promise<Subscription | undefined>; disabledAt: number | undefined }
  >();

  constructor(private readonly deps: BatchSubscriptionsDeps) {}

  /** Every subscription by id, read once per batch (eventually consistent: fine for fan-out). */
  all(): Promise<Map<string, Subscription>> {
    if (!this.subscriptionList) {
      this.subscriptionsReadAt = this.deps.clock.now();
      this.subscriptionList = this.deps.store.listSubscriptions().then((all) => {
        this.subscriptionsListed = new Map(all.map((s) => [s.id, s]));
        return this.subscriptionsListed;
      });
    }
    return this.subscriptionList;
  }

  /**
   * The endpoint `subscription` posts to (its URL's, see endpointOfUrl) and the settings that
   * hold there: the smallest `maxConcurrency` and `rateLimitPerSecond` set by the enabled
   * subscriptions to that URL (see sharedEndpointSettings). Worked out once per URL and batch,
   * from the batch's list (read before: see {@link subscription}).
   */
  sharedEndpoint(subscription: Subscription): { endpoint: string; settings: EndpointSettings } {
    const known = this.sharedEndpoints.get(subscription.url);
    if (known) return known;
    const sharing = [...(this.subscriptionsListed?.values() ?? [])].filter(
      (other) => other.enabled && other.url === subscription.url && other.id !== subscription.id,
    );
    if (subscription.enabled) sharing.push(subscription);
    const shared = {
      endpoint: endpointOfUrl(subscription.url),
      settings: sharedEndpointSettings(sharing),
    };
    this.sharedEndpoints.set(subscription.url, shared);
    return shared;
  }

  /**
   * One subscription: from the batch's list, or read on its own when the list lacks it (a
   * list read a moment before the subscription was made), so a missing one is really gone.
   * Read again when this process has disabled it since the batch read it (a 410, or the admin
   * API of the local run), and once the batch's copy is {@link SUBSCRIPTION_FRESH_MS} old (the
   * admin API of another process): no request goes to a disabled subscription after this
   * process disabled it, from whichever batch, nor more than about that long after another did.
   */
  subscription(id: string): Promise<Subscription | undefined> {
    // The common case, a fresh copy in the list already read, needs no async step of its own.
    const listed = this.freshCopy(this.subscriptionsListed, id);
    return listed ? Promise.resolve(listed) : this.readSubscription(id);
  }

  /** `list`'s copy of subscription `id` when it can serve as it is (see {@link readAgain}). */
  private freshCopy(
    list: ReadonlyMap<string, Subscription> | undefined,
    id: string,
  ): Subscription | undefined {
    const listed = list?.get(id);
    return listed && !(listed.enabled && this.readAgain(id)) ? listed : undefined;
  }

  /** {@link subscription} once the list is read: its copy, or one read again. */
  private async readSubscription(id: string): Promise<Subscription | undefined> {
    const list = await this.all();
    const listed = this.freshCopy(list, id);
    if (listed) return listed;
    const disabledAt = this.deps.scheduler.disabledAt(id);
    // Deliveries that find the copy stale at once share one read (unless disabled since it began).
    const inFlight = this.readsInFlight.get(id);
    if (inFlight && inFlight.disabledAt === disabledAt) return inFlight.read;
    const at = this.deps.clock.now();
    const read = this.deps.store.getSubscription(id).then((subscription) => {
      // Noted once read: a read that failed (its record fails) leaves the next delivery to read it.
      this.reread.set(id, { at, disabledAt });
      if (subscription) list.set(id, subscription);
      else list.delete(id);
      return subscription;
    });
    const entry = { read, disabledAt };
    this.readsInFlight.set(id, entry);
    try {
      return await read;
    } finally {
      if (this.readsInFlight.get(id) === entry) this.readsInFlight.delete(id);
    }
  }

  /**
   * Whether the batch's copy of a subscription must be read again: this process disabled it
   * after the copy was read, or the copy is {@link SUBSCRIPTION_FRESH_MS} old.
   */
  private readAgain(id: string): boolean {
    const disabledAt = this.deps.scheduler.disabledAt(id);
    const reread = this.reread.get(id);
    const readAt = reread?.at ?? this.subscriptionsReadAt;
    if (readAt === undefined) return false;
    if (this.deps.clock.now() - readAt >= SUBSCRIPTION_FRESH_MS) return true;
    if (disabledAt === undefined) return false;
    return reread ? disabledAt !== reread.disabledAt : disabledAt >= readAt;
  }

  /**
   * Notes that a subscription was disabled during this batch; its later deliveries see it, and
   * so do those of the process's other batches (see {@link subscription}).
   */
  async markDisabled(id: string): Promise<void> {
    this.deps.scheduler.noteDisabled(id);
    this.reread.set(id, {
      at: this.deps.clock.now(),
      disabledAt: this.deps.scheduler.disabledAt(id),
    });
    const listed = (await this.all()).get(id);
    if (listed) (await this.all()).set(id, { ...listed, enabled: false });
  }
}
