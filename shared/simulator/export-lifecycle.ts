import type { Export } from '../connector/records/index.ts';
import type { SimModel } from './model.ts';
import { iso } from './sim-random.ts';

/** Simulated time an export stays Pending. */
export const EXPORT_PENDING_MS = 10_000;
/** Simulated time an export spends Processing after Pending. */
export const EXPORT_PROCESSING_MS = 20_000;
/** How long the files of a successful export stay downloadable. */
export const EXPORT_FILES_TTL_MS = 10 * 60_000;

type ExportStatus = 'Pending' | 'Processing' | 'Success' | 'Expired';
const ORDER: readonly ExportStatus[] = ['Pending', 'Processing', 'Success', 'Expired'];

function statusAt(createdMs: number, nowMs: number): ExportStatus {
  const age = nowMs - createdMs;
  if (age < EXPORT_PENDING_MS) return 'Pending';
  if (age < EXPORT_PENDING_MS + EXPORT_PROCESSING_MS) return 'Processing';
  if (age < EXPORT_PENDING_MS + EXPORT_PROCESSING_MS + EXPORT_FILES_TTL_MS) return 'Success';
  return 'Expired';
}

function recordIn(record: Export, status: ExportStatus, createdMs: number): Partial<Export> {
  const successMs = createdMs + EXPORT_PENDING_MS + EXPORT_PROCESSING_MS;
  if (status === 'Success') {
    return {
      Status: status,
      Files: [
        { Url: `https://exports.sim.invalid/${record.Id}/part-1.jsonl`, SizeInBytes: 48_213 },
      ],
      ExpiresUtc: iso(successMs + EXPORT_FILES_TTL_MS),
    };
  }
  // After ExpiresUtc files may no longer be downloadable (connector-api.md, Export).
  if (status === 'Expired') return { Status: status, Files: [] };
  return { Status: status };
}

/** The export record as it looks `nowMs` after being requested at `createdMs` (dataset seeding). */
export function exportAsOf(record: Export, createdMs: number, nowMs: number): Export {
  let current = record;
  for (const status of ORDER.slice(1, ORDER.indexOf(statusAt(createdMs, nowMs)) + 1)) {
    current = { ...current, ...recordIn(current, status, createdMs) };
  }
  return current;
}

/**
 * Moves every export whose lifecycle step is due (Pending → Processing → Success → Expired),
 * journaling each step as an update. Called before each request and each activity step, so
 * the state is always current for the injected clock.
 */
export function advanceExports(model: SimModel): void {
  const now = model.clock.now();
  for (const [id, createdMs] of model.exportTimeline) {
    const entry = model.exports.get(id);
    if (!entry) {
      model.exportTimeline.delete(id);
      continue;
    }
    const target = statusAt(createdMs, now);
    let index = ORDER.indexOf(entry.record.Status as ExportStatus);
    while (index >= 0 && index < ORDER.indexOf(target)) {
      index += 1;
      const status = ORDER[index]!;
      model.update(model.exports, 'export', id, recordIn(entry.record, status, createdMs));
    }
    if (target === 'Expired') model.exportTimeline.delete(id);
  }
}
