/**
 * zlib options for deflating inputs of a few kilobytes (event bodies, snapshots), one call
 * each. Every `deflateRawSync` call sets up a fresh compressor, and for inputs this small the
 * set-up costs more than the compressing:
 * - memory level 4 (not 8) halves the hash table cleared at each set-up;
 * - level 1 (zlib's fastest matching) packs these inputs about as small as the default level 6
 *   in a third of the time: on the simulator's customers, event bodies (~3.3 KB, with a
 *   dictionary) 185 → 191 bytes in 40 → 12 µs, snapshots (~1.4 KB) 223 → 230 bytes in
 *   29 → 10 µs (part measurement);
 * - an 8 KB window (windowBits 13, not zlib's 32 KB) still holds a body of a few KB with its
 *   preset dictionary, so such a body packs the same, but the compressor allocates a quarter of
 *   the memory (window and chain table: 32 KB, not 128 KB) at each call; a larger input only
 *   finds its repeats within 8 KB;
 * - a 4 KB output chunk (not 16 KB): these outputs fit in one, and a larger one is only
 *   followed by another.
 * Together, the last two take a third off a 3 KB event body's call (part measurement: 41 → 29
 * µs). Both kinds stay well within one DynamoDB write unit. Inflating does not depend on them: zlib's default 32 KB window reads what a smaller one
 * wrote, so items stored with other options read back the same.
 */
export const SMALL_INPUT_DEFLATE = {
  level: 1,
  memLevel: 4,
  windowBits: 13,
  chunkSize: 4096,
} as const;
