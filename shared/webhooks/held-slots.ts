import type { Clock } from '../clock.ts';
import { type EndpointSlots, SLOT_HOLD_MS } from './endpoint-slots.ts';

/** How long a process short of slots waits before asking again (others give theirs back). */
export const SLOT_RETRY_MS = 500;

/** How long an endpoint with no work keeps its share, in case more comes at once. */
export const SLOT_IDLE_RELEASE_MS = 1000;

/** What an endpoint's work asks of its share now. */
export interface SlotDemand {
  /** Slots it could use now: in flight plus waiting, within its adaptive limit; 0 when idle. */
  wanted: number;
  /** The endpoint's maximum across every process (the smallest `maxConcurrency` its subscriptions set). */
  max: number;
  /** Requests in flight from this process: a share never drops below them. */
  inUse: number;
}

/**
 * This process's share of one endpoint's slots (see {@link EndpointSlots}), kept fitting its
 * work: it asks for more when work waits beyond it (one request at a time, again after
 * {@link SLOT_RETRY_MS} while others hold the rest), renews it a third of a hold before it
 * lapses while work goes on, and gives it back once the endpoint has had no work for
 * {@link SLOT_IDLE_RELEASE_MS}, or when told to ({@link releaseIfIdle}). `onChange` is called
 * after every answer, so the scheduler can start what the share now allows.
 */
export class HeldSlots {
  /** Slots held (or last held, when a renewal failed): what is asked for or given back. */
  private held = 0;
  private until = 0;
  /** The store lists this process for the endpoint (a share, or a want granted nothing yet). */
  private listed = false;
  private request: Promise<void> | undefined;
  private retryPending = false;
  private renewalPending = false;
  private releasePending = false;

  constructor(
    private readonly port: EndpointSlots,
    private readonly endpoint: string,
    private readonly clock: Clock,
    private readonly demand: () => SlotDemand,
    private readonly onChange: () => void,
  ) {}

  /** Slots this process may use now: its share, while the share has not lapsed. */
  get usable(): number {
    return this.clock.now() < this.until ? this.held : 0;
  }

  /** Work waits beyond the share: asks for more, unless a request or a retry is under way. */
  askForMore(): void {
    if (this.request || this.retryPending) return;
    const before = this.held;
    void this.adjust(() => {
      // Decided before the scheduler hears of the answer: it would otherwise ask again at once.
      if (this.held > before || this.held >= this.demand().wanted) return;
      this.retryPending = true;
      void this.clock.sleep(SLOT_RETRY_MS).then(() => {
        this.retryPending = false;
        if (this.held < this.demand().wanted) this.askForMore();
      });
    });
  }

  /** The endpoint has no work now: its share (or its want) goes back unless work comes soon. */
  idle(): void {
    if (!this.listed || this.releasePending) return;
    this.releasePending = true;
    void this.clock.sleep(SLOT_IDLE_RELEASE_MS).then(() => {
      this.releasePending = false;
      void this.releaseIfIdle().catch(() => undefined);
    });
  }

  /** Gives the share (or the want) back now if the endpoint has no work (a Lambda invocation's end). */
  async releaseIfIdle(): Promise<void> {
    while (this.listed && this.demand().wanted === 0) await this.adjust(undefined, true);
  }

  /**
   * Asks the port for the share the work wants now, one request at a time (a caller that finds
   * one under way waits for it). The demand is taken a microtask later, so work arriving
   * together is asked for together. `answered` runs once the answer (or failure) is in, before
   * `onChange`. Failures leave the share as it was; `strict` rethrows them.
   */
  private adjust(answered?: () => void, strict = false): Promise<void> {
    this.request ??= (async () => {
      try {
        await Promise.resolve();
        const { wanted, max, inUse } = this.demand();
        const hold = await this.port.hold(this.endpoint, wanted, max, inUse);
        this.held = hold.slots;
        this.until = hold.until;
        this.listed = (hold.wants ?? hold.slots) > 0;
      } finally {
        this.request = undefined;
        answered?.();
        this.keepRenewed();
        this.onChange();
      }
    })();
    return strict ? this.request : this.request.catch(() => undefined);
  }

  /** While slots are held, renews them a third of a hold before they lapse. */
  private keepRenewed(): void {
    if (this.held === 0 || this.renewalPending) return;
    this.renewalPending = true;
    // After a failed renewal (the time already passed), again a moment later, not at once.
    const renewAt = this.until - SLOT_HOLD_MS / 3;
    void this.clock.sleep(Math.max(SLOT_RETRY_MS, renewAt - this.clock.now())).then(() => {
      this.renewalPending = false;
      if (this.held > 0) void this.adjust();
    });
  }
}
