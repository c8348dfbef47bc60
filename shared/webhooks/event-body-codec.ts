import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { SMALL_INPUT_DEFLATE } from '../deflate-options.ts';
import { BridgeError } from '../errors.ts';
import { EVENT_BODY_DICTIONARY_V1 } from './event-body-dictionary.ts';

/** First byte of a compressed body: raw deflate with {@link EVENT_BODY_DICTIONARY_V1}. */
const FORMAT_DEFLATE_DICTIONARY_V1 = 1;

/**
 * Compresses an event body for storage: a format byte, then raw deflate with a preset
 * dictionary of the catalogue's field names. A change event carries `current` and
 * `previous`, mostly the same record twice, so a ~3.5 KB body shrinks to ~650 bytes and its
 * item stays within one DynamoDB write unit (~0.01 ms of CPU, see SMALL_INPUT_DEFLATE). Lossless:
 * {@link decompressEventBody} gives back the exact bytes that were signed.
 * @example decompressEventBody(compressEventBody(body)) === body
 */
export function compressEventBody(body: string): Uint8Array {
  const packed = deflateRawSync(Buffer.from(body, 'utf8'), {
    ...SMALL_INPUT_DEFLATE,
    dictionary: EVENT_BODY_DICTIONARY_V1,
  });
  const bytes = new Uint8Array(packed.length + 1);
  bytes[0] = FORMAT_DEFLATE_DICTIONARY_V1;
  bytes.set(packed, 1);
  return bytes;
}

/** The body {@link compressEventBody} compressed. Throws {@link BridgeError} on an unknown format. */
export function decompressEventBody(bytes: Uint8Array): string {
  if (bytes[0] !== FORMAT_DEFLATE_DICTIONARY_V1) {
    throw new BridgeError(`stored event body has unknown format ${bytes[0]}`);
  }
  return inflateRawSync(bytes.subarray(1), { dictionary: EVENT_BODY_DICTIONARY_V1 }).toString(
    'utf8',
  );
}
