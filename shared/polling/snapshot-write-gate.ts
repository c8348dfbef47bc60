/**
 * The write-through proxy and a stream's polls (live and catch-up windows, its first sync, a
 * backfill pass) both store snapshots of the entities the proxy writes (customers, payment
 * requests); run at the same moment, they must store them with conditions over the versions
 * they read (see guarded-snapshots.ts), one conditional write a snapshot. Within one process
 * (`change-bridge start`, where the proxy and the pollers share the store) this gate lets such
 * a page store its snapshots in batches, as any other page, whenever no proxied write of its
 * stream overlaps it: a page opened while a write of its stream runs is guarded, and a write
 * waits for the unguarded pages of its stream in flight to store theirs before it reads the
 * snapshots. Where the proxy runs in another process (AWS), there is no gate and every such
 * page is guarded.
 */
export class SnapshotWriteGate {
  /** Proxied writes in progress, per stream. */
  readonly #writing = new Map<string, number>();
  /** Pages in flight that store without conditions, per stream: each resolves when stored. */
  readonly #unguarded = new Map<string, Set<UnguardedPage>>();

  /**
   * A page of `streamId` about to read its stored snapshots. Guarded (store with
   * conditions) while a proxied write of the stream runs; otherwise it stores in batches and
   * must call `close()` once stored or failed.
   */
  openPage(streamId: string): PageTicket {
    if ((this.#writing.get(streamId) ?? 0) > 0)
      return { beginStore: () => true, close: () => undefined };
    let resolve!: () => void;
    const page: UnguardedPage = {
      stored: new Promise<void>((done) => {
        resolve = done;
      }),
      storing: false,
      overtaken: false,
    };
    const pages = this.#unguarded.get(streamId) ?? new Set<UnguardedPage>();
    pages.add(page);
    this.#unguarded.set(streamId, pages);
    let closed = false;
    return {
      beginStore: () => {
        page.storing = true;
        return page.overtaken;
      },
      close: () => {
        if (closed) return;
        closed = true;
        pages.delete(page);
        if (pages.size === 0 && this.#unguarded.get(streamId) === pages)
          this.#unguarded.delete(streamId);
        resolve();
      },
    };
  }

  /**
   * A proxied write of `streamId` about to read its stored snapshots: pages opened from now on
   * are guarded, and this waits until the unguarded pages in flight have stored (at most
   * `waitMs`: past it the write goes on, guarded itself, and the pages it stopped waiting for
   * store with conditions too, as in another process). Returns what ends the write.
   */
  async openWrite(streamId: string, waitMs = WRITE_WAITS_FOR_PAGES_MS): Promise<() => void> {
    this.#writing.set(streamId, (this.#writing.get(streamId) ?? 0) + 1);
    const inFlight = [...(this.#unguarded.get(streamId) ?? [])];
    if (inFlight.length > 0 && !(await storedWithin(inFlight, waitMs))) {
      // Pages still in flight past the wait store with conditions over what they read, as in
      // another process (a page storing without them after this write would put its older
      // version over the write's); those already storing are waited for once more.
      const open = inFlight.filter((page) => this.#unguarded.get(streamId)?.has(page));
      for (const page of open) if (!page.storing) page.overtaken = true;
      await storedWithin(
        open.filter((page) => page.storing),
        waitMs,
      );
    }
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = (this.#writing.get(streamId) ?? 1) - 1;
      if (left > 0) this.#writing.set(streamId, left);
      else this.#writing.delete(streamId);
    };
  }
}

/** How long a proxied write waits for the unguarded pages of its stream to store, at most. */
export const WRITE_WAITS_FOR_PAGES_MS = 30_000;

/** Whether every page of `pages` stored within `waitMs`. */
async function storedWithin(pages: readonly UnguardedPage[], waitMs: number): Promise<boolean> {
  if (pages.length === 0) return true;
  let timer: NodeJS.Timeout | undefined;
  const stored = await Promise.race([
    Promise.all(pages.map((page) => page.stored)).then(() => true),
    new Promise<boolean>((done) => {
      timer = setTimeout(() => done(false), waitMs);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
  return stored;
}

/** A page's standing at the gate. */
export interface PageTicket {
  /**
   * Called as the page starts storing its snapshots: true when it must store them with
   * conditions, since a proxied write of its stream overlaps it (it was opened during the
   * write, or the write stopped waiting for it and went on).
   */
  beginStore(): boolean;
  /** Called once the page's snapshots are stored or will not be: ends its hold on writes. */
  close(): void;
}

interface UnguardedPage {
  stored: Promise<void>;
  /** Its snapshots are being stored (without conditions, unless overtaken). */
  storing: boolean;
  /** A write stopped waiting for it before it stored: it stores with conditions. */
  overtaken: boolean;
}
