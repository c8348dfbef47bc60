/** A column of numbers: one of the typed arrays the queue's in-memory index keeps. */
export type NumberColumn = Float64Array | Uint32Array | Uint8Array;

/**
 * `column` copied into a new array of the same kind with room for `capacity` rows (the rows it
 * held keep their values; the new ones are 0).
 */
export function grown<Column extends NumberColumn>(column: Column, capacity: number): Column {
  const Kind = column.constructor as new (length: number) => Column;
  const next = new Kind(capacity);
  next.set(column);
  return next;
}
