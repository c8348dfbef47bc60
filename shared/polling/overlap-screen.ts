import { type EntityRecord, type EntityType, entityIdOf } from '../changes/entity-types.ts';
import type { ItemScreen, ScreenedText } from '../connector/item-screen.ts';
import { withArrayMemberEmptied } from '../json-member-text.ts';
import { isJsonObject } from '../json-object.ts';
import type { StreamWindow } from '../state/state-store.ts';
import {
  type OverlapMemory,
  type RememberedPrint,
  recordFingerprint,
  textFingerprint,
} from './overlap-memory.ts';

/** The entity id of a raw, not yet validated record, or undefined when it has none. */
function rawEntityId(entityType: EntityType, item: unknown): string | undefined {
  if (!isJsonObject(item)) return undefined;
  try {
    return entityIdOf(entityType, item as EntityRecord);
  } catch {
    return undefined;
  }
}

/** Ids that occur more than once among `items` (the connector repeats none; if it did, none of them is passed over). */
function repeatedIds(ids: ReadonlyArray<string | undefined>): Set<string> {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const id of ids) {
    if (id === undefined) continue;
    if (seen.has(id)) repeated.add(id);
    else seen.add(id);
  }
  return repeated;
}

/** Fingerprint → entity id of the records a window may pass over, or undefined for none. */
type IdsByPrint = () => ReadonlyMap<string, string> | undefined;

/**
 * The screen of one page of a window (see ItemScreen): it passes over the raw records the
 * window before stored byte for byte (so they are neither validated nor judged again), and
 * notes the fingerprints of those the next window can read again, to keep once the page is
 * stored. Fingerprints are taken of the records as the connector sent them, before validation;
 * a page whose every record it passes over is told from its text alone (screenText), without
 * being parsed: the overlap's re-reads of a burst are mostly such pages.
 */
export class OverlapScreen implements ItemScreen {
  /** Entity id and the version of each record of the page the next window can read again. */
  keep: Array<[string, RememberedPrint]> = [];
  #passedOver = 0;
  #asText = false;
  /** The fingerprints of the page's records from its text, when screenText read them all. */
  #textPrints: string[] | undefined;
  readonly #entityType: EntityType;
  readonly #recalled: ReadonlyMap<string, RememberedPrint> | undefined;
  readonly #zoneStartMs: number;
  readonly #idsByPrint: IdsByPrint;

  constructor(
    entityType: EntityType,
    recalled: ReadonlyMap<string, RememberedPrint> | undefined,
    zoneStartMs: number,
    idsByPrint: IdsByPrint = () => (recalled ? idsByPrintOf(recalled) : undefined),
  ) {
    this.#entityType = entityType;
    this.#recalled = recalled;
    this.#zoneStartMs = zoneStartMs;
    this.#idsByPrint = idsByPrint;
  }

  screen(items: readonly unknown[]): unknown[] {
    this.keep = [];
    this.#passedOver = 0;
    this.#asText = false;
    // The texts' fingerprints stand for the records' own (the same bytes hashed where the text
    // is JSON.stringify's; where it is not, both sides of a comparison are the text's or differ).
    const textPrints = this.#textPrints?.length === items.length ? this.#textPrints : undefined;
    this.#textPrints = undefined;
    const ids = items.map((item) => rawEntityId(this.#entityType, item));
    const repeated = repeatedIds(ids);
    return items.filter((item, index) => {
      const entityId = ids[index];
      if (entityId === undefined || repeated.has(entityId)) return true;
      const known = this.#recalled?.get(entityId);
      const updated = (item as Record<string, unknown>).UpdatedUtc;
      const updatedMs = typeof updated === 'string' ? Date.parse(updated) : Number.NaN;
      const reReadable = updatedMs >= this.#zoneStartMs;
      if (known === undefined && !reReadable) return true;
      const textPrint = textPrints?.[index];
      const print = textPrint ?? recordFingerprint(item);
      if (reReadable) this.keep.push([entityId, { print, updatedMs }]);
      if (known === undefined) return true;
      // A version remembered from a parsed page whose text was not read (its record written out
      // as JSON.stringify would) is told by the same fingerprint, when the connector's text is
      // not JSON.stringify's; the text's fingerprint is kept for the next window.
      const same =
        known.print === print ||
        (textPrint !== undefined && known.print === recordFingerprint(item));
      if (!same) return true;
      this.#passedOver++;
      return false;
    });
  }

  /**
   * The page's text with its records left out, when each of them is, byte for byte, a version
   * the window before stored (by {@link textFingerprint}, equal to the stored version's
   * {@link recordFingerprint} only for the same bytes) and no entity comes twice; undefined
   * otherwise: the page is then parsed and screened as usual, with the fingerprints of its
   * records' texts taken here. The records are sound JSON, being the bytes of versions parsed
   * before; the rest of the page is parsed and held to its schema from the text returned.
   */
  screenText(text: string, itemsKey: string): ScreenedText | undefined {
    this.#textPrints = undefined;
    const recalled = this.#recalled;
    const idsByPrint = recalled?.size ? this.#idsByPrint() : undefined;
    if (recalled === undefined || idsByPrint === undefined) return undefined;
    const keep: Array<[string, RememberedPrint]> = [];
    const seen = new Set<string>();
    const prints: string[] = [];
    let allKnown = true;
    // Every record's text is hashed, known or not: a page parsed after all takes the hashes
    // instead of writing each record out again (so a late record unknown wastes no work).
    const emptied = withArrayMemberEmptied(text, itemsKey, (recordText) => {
      const print = textFingerprint(recordText);
      prints.push(print);
      const entityId = allKnown ? idsByPrint.get(print) : undefined;
      if (entityId === undefined || seen.has(entityId)) {
        allKnown = false;
        return true;
      }
      seen.add(entityId);
      const known = recalled.get(entityId);
      if (known !== undefined && known.updatedMs >= this.#zoneStartMs) keep.push([entityId, known]);
      return true;
    });
    if (emptied === undefined) return undefined;
    if (!allKnown) {
      this.#textPrints = prints;
      return undefined;
    }
    this.keep = keep;
    this.#passedOver = seen.size;
    this.#asText = true;
    return { text: emptied, passedOver: seen.size };
  }

  /** Records of the page passed over. */
  get passedOver(): number {
    return this.#passedOver;
  }

  /** Whether the page was passed over whole from its text (see screenText). */
  get screenedAsText(): boolean {
    return this.#asText;
  }
}

/**
 * Fingerprint → entity id of `recalled`; a fingerprint two entities share (no connector record
 * repeats another's bytes, its id among them) is left out, so it is never passed over as text.
 */
function idsByPrintOf(recalled: ReadonlyMap<string, RememberedPrint>): Map<string, string> {
  const ids = new Map<string, string>();
  const shared = new Set<string>();
  for (const [entityId, { print }] of recalled) {
    if (ids.has(print)) shared.add(print);
    else ids.set(print, entityId);
  }
  for (const print of shared) ids.delete(print);
  return ids;
}

/**
 * What one window passes over and remembers: the fingerprints its start may pass over (those the
 * window before it stored, when it starts from that window's watermark), and those it stores or
 * passes over that the next window can read again (`UpdatedUtc` at or after its end minus the
 * overlap).
 */
export class WindowOverlap {
  /** Kept for the next window, once the pages that hold them are stored (within the bound). */
  readonly #kept = new Map<string, RememberedPrint>();
  readonly #memory: OverlapMemory;
  readonly #recalled: ReadonlyMap<string, RememberedPrint> | undefined;
  readonly #zoneStartMs: number;
  readonly #entityType: EntityType;
  /** The recalled versions by fingerprint, made once for the window's pages when first asked. */
  #idsByPrint: Map<string, string> | undefined;

  constructor(
    memory: OverlapMemory,
    recalled: ReadonlyMap<string, RememberedPrint> | undefined,
    window: StreamWindow,
    overlapMs: number,
    entityType: EntityType,
  ) {
    this.#memory = memory;
    this.#recalled = recalled;
    this.#zoneStartMs = Date.parse(window.endUtc) - overlapMs;
    this.#entityType = entityType;
  }

  /** A screen for one page's request. */
  pageScreen(): OverlapScreen {
    return new OverlapScreen(this.#entityType, this.#recalled, this.#zoneStartMs, () => {
      if (this.#recalled === undefined) return undefined;
      this.#idsByPrint ??= idsByPrintOf(this.#recalled);
      return this.#idsByPrint;
    });
  }

  /** Keeps what a stored page's screen noted, as far as one stream's bound allows. */
  keepStored(screen: ItemScreen | undefined): void {
    if (!(screen instanceof OverlapScreen)) return;
    this.#memory.notePassedOver(screen.passedOver, screen.screenedAsText);
    for (const [entityId, version] of screen.keep) {
      if (this.#kept.size >= this.#memory.maxEntriesPerStream && !this.#kept.has(entityId)) return;
      this.#kept.set(entityId, version);
    }
  }

  /** Hands what was kept to the memory: the window committed `watermark`. */
  commit(streamId: string, watermark: string): void {
    this.#memory.remember(streamId, watermark, this.#kept);
  }
}
