/**
 * zlib options for deflating inputs of a few kilobytes (event bodies, snapshots), one call
 * each. Every `deflateRawSync` call sets up a fresh compressor, and at zlib's default memory
 * level (8) that set-up (clearing a 64 K-entry hash table, and hashing a preset dictionary into
 * it) costs more than compressing a 1 KB body: memory level 4 halves the time of a dictionary
 * body (~45 → ~20 µs; part measurement). On the simulator's customers it gave the same bytes
 * for every event body and snapshots 0.01 % larger. The window stays at zlib's 32 KB, so the
 * stored format and the inflating side do not change.
 */
export const SMALL_INPUT_DEFLATE = { memLevel: 4 } as const;
