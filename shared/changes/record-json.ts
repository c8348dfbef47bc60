/** JSON text and its length once UTF-8 encoded (what size limits and stored items count). */
export interface SizedJson {
  /** JSON.stringify's text. */
  json: string;
  /** Bytes of `json` in UTF-8. */
  bytes: number;
}

const written = new WeakMap<object, SizedJson>();

/**
 * `record` as JSON.stringify writes it, and its UTF-8 length, written once per record object:
 * a polled record is written into its change event's JSON and again into its stored snapshot,
 * and the second takes the first's text (a record's text was about 4 % of the main thread of an
 * emitting backfill, and its bytes as many again in garbage). A record is never changed once
 * parsed from its page (the bridge builds new objects around it), so its text stays its own;
 * the text is forgotten with the record.
 * @throws what JSON.stringify throws for `record` (a BigInt, a cycle)
 * @example recordJson({ Id: 'c-1' }) // { json: '{"Id":"c-1"}', bytes: 12 }
 */
export function recordJson(record: object): SizedJson {
  let sized = written.get(record);
  if (sized === undefined) {
    const json = JSON.stringify(record);
    // byteLength also flattens the text V8 built in parts, once, for every later use.
    sized = { json, bytes: Buffer.byteLength(json, 'utf8') };
    written.set(record, sized);
  }
  return sized;
}
