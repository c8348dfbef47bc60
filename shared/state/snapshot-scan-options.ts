import { ValidationError } from '../errors.ts';

/** Options of {@link StateStore.scanSnapshots}. */
export interface ScanSnapshotsOptions {
  /** Upper bound of snapshots per yielded page (default {@link SCAN_PAGE_SIZE_DEFAULT}). */
  pageSize?: number;
  /** Only the snapshots whose entity id sorts after this one (in the store's key order). */
  after?: string;
}

/** Default page size of {@link StateStore.scanSnapshots}, in snapshots. */
export const SCAN_PAGE_SIZE_DEFAULT = 1000;

/**
 * The page size a scan uses: `options.pageSize` or the default. Throws ValidationError
 * (path `pageSize`) unless it is a positive integer.
 */
export function scanPageSize(options: ScanSnapshotsOptions = {}): number {
  const pageSize = options.pageSize ?? SCAN_PAGE_SIZE_DEFAULT;
  if (Number.isInteger(pageSize) && pageSize > 0) return pageSize;
  throw new ValidationError('scan options', [
    { path: 'pageSize', message: `must be a positive integer, got ${pageSize}` },
  ]);
}
