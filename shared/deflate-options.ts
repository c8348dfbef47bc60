/**
 * zlib options for deflating inputs of a few kilobytes (event bodies, snapshots), one call
 * each. Every `deflateRawSync` call sets up a fresh compressor, and at zlib's default memory
 * level (8) that set-up (clearing a 64 K-entry hash table, and hashing a preset dictionary into
 * it) costs more than compressing a 1 KB body: memory level 4 halves it. Level 1 (zlib's
 * fastest matching) packs these inputs about as small as the default level 6 in a third of the
 * time: on the simulator's customers, event bodies (~3.3 KB, with a dictionary) 185 → 191 bytes
 * in 40 → 12 µs, snapshots (~1.4 KB) 223 → 230 bytes in 29 → 10 µs (part measurement); both stay
 * well within one DynamoDB write unit. The window stays at zlib's 32 KB and inflating does not
 * depend on the level, so items stored at another level read back the same.
 */
export const SMALL_INPUT_DEFLATE = { level: 1, memLevel: 4 } as const;
