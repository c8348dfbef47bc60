import { recordJson, type SizedJson } from '../changes/record-json.ts';
import { isJsonObject } from '../json-object.ts';
import { type PublishableEvent, utf8Bytes } from './publishable-event.ts';

/** What an event's `data.current` is written as before its record's own text takes its place. */
const CURRENT_PLACE = '\u0000change-bridge:current\u0000';
/** How {@link CURRENT_PLACE} appears in the event's JSON, as `data.current`'s member. */
const CURRENT_MEMBER = `"current":${JSON.stringify(CURRENT_PLACE)}`;
const CURRENT_KEY = '"current":';

/**
 * The event's JSON, exactly JSON.stringify's text, and its UTF-8 length. The record in
 * `data.current` is written by {@link recordJson}, so the snapshot stored after the publish
 * takes the same text instead of writing the record again; the rest of the event is written
 * around a placeholder. Its member is found once only (a string's quotes are escaped, so only
 * a member can hold it); an event where it is found twice is written whole. No effect but the
 * record's text kept with the record.
 * @example eventJson(event).json === JSON.stringify(event)
 */
export function eventJson(event: PublishableEvent): SizedJson {
  const current = event.data.current;
  if (!isJsonObject(current)) return sizedJson(JSON.stringify(event));
  const around = JSON.stringify({ ...event, data: { ...event.data, current: CURRENT_PLACE } });
  const at = around.indexOf(CURRENT_MEMBER);
  const after = at + CURRENT_MEMBER.length;
  if (at < 0 || around.includes(CURRENT_MEMBER, after)) return sizedJson(JSON.stringify(event));
  const record = recordJson(current);
  const head = around.slice(0, at + CURRENT_KEY.length);
  const tail = around.slice(after);
  return {
    json: head + record.json + tail,
    bytes: utf8Bytes(head) + record.bytes + utf8Bytes(tail),
  };
}

function sizedJson(json: string): SizedJson {
  return { json, bytes: utf8Bytes(json) };
}
