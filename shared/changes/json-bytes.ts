import { BridgeError } from '../errors.ts';
import { isJsonObject } from '../json-object.ts';
import { keyOrderOf } from './key-order.ts';

/** Bytes the shared writer starts with: a record of a few KB never grows it. */
const INITIAL_BYTES = 16 * 1024;
/** A writer grown past this for a big record goes back to {@link INITIAL_BYTES} once done. */
const KEPT_BYTES_MAX = 1024 * 1024;

const HEX = '0123456789abcdef';
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** How {@link writeJsonBytes} orders members. */
export interface JsonBytesOptions {
  /** Members of every object in code-unit order of their keys; false: in the object's own order. */
  sorted: boolean;
  /** Top-level members left out (only when the value is an object). */
  skip?: readonly string[];
}

/**
 * UTF-8 JSON written straight into one growing buffer: no intermediate string, copy or array
 * per record (a JSON.stringify of a 1.5 KB record allocates about 6 KB on the way, and its
 * hashing flattens the result again).
 */
class JsonByteWriter {
  bytes = Buffer.allocUnsafeSlow(INITIAL_BYTES);
  length = 0;
  busy = false;

  /** Makes room for `count` more bytes. */
  reserve(count: number): void {
    const needed = this.length + count;
    if (needed <= this.bytes.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(needed, this.bytes.length * 2));
    this.bytes.copy(grown, 0, 0, this.length);
    this.bytes = grown;
  }

  /** Writes characters known to be ASCII (numbers, literals). */
  writeAscii(text: string): void {
    this.reserve(text.length);
    const bytes = this.bytes;
    let at = this.length;
    for (let i = 0; i < text.length; i++) bytes[at++] = text.charCodeAt(i);
    this.length = at;
  }

  writeByte(value: number): void {
    this.reserve(1);
    this.bytes[this.length++] = value;
  }

  /**
   * Writes a string as JSON.stringify quotes it (ES2019 well-formed: `"`, `\` and control
   * characters escaped, short forms where JSON has them; lone surrogates as `\udxxx`), in UTF-8.
   */
  writeString(text: string): void {
    // At most 6 bytes per code unit (`\u001f`), and the two quotes.
    this.reserve(text.length * 6 + 2);
    const bytes = this.bytes;
    let at = this.length;
    bytes[at++] = QUOTE;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code < 0x80) {
        if (code >= 0x20 && code !== QUOTE && code !== BACKSLASH) {
          bytes[at++] = code;
        } else {
          at = escapeAscii(bytes, at, code);
        }
      } else if (code < 0x800) {
        bytes[at++] = 0xc0 | (code >> 6);
        bytes[at++] = 0x80 | (code & 0x3f);
      } else if (code < 0xd800 || code > 0xdfff) {
        bytes[at++] = 0xe0 | (code >> 12);
        bytes[at++] = 0x80 | ((code >> 6) & 0x3f);
        bytes[at++] = 0x80 | (code & 0x3f);
      } else {
        const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
        if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          const point = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
          bytes[at++] = 0xf0 | (point >> 18);
          bytes[at++] = 0x80 | ((point >> 12) & 0x3f);
          bytes[at++] = 0x80 | ((point >> 6) & 0x3f);
          bytes[at++] = 0x80 | (point & 0x3f);
          i++;
        } else {
          at = unicodeEscape(bytes, at, code);
        }
      }
    }
    bytes[at++] = QUOTE;
    this.length = at;
  }

  writeValue(value: unknown, sorted: boolean): void {
    if (typeof value === 'string') {
      this.writeString(value);
    } else if (typeof value === 'number') {
      // JSON has no NaN or Infinity (JSON.stringify writes null); -0 is written 0, as String does.
      this.writeAscii(Number.isFinite(value) ? String(value) : 'null');
    } else if (value === null) {
      this.writeAscii('null');
    } else if (typeof value === 'boolean') {
      this.writeAscii(value ? 'true' : 'false');
    } else if (Array.isArray(value)) {
      this.writeByte(0x5b);
      for (let i = 0; i < value.length; i++) {
        if (i > 0) this.writeByte(0x2c);
        const item: unknown = value[i];
        // As in JSON.stringify, holes and undefined inside arrays are null.
        this.writeValue(item === undefined ? null : item, sorted);
      }
      this.writeByte(0x5d);
    } else if (isJsonObject(value)) {
      this.writeObject(value, sorted, undefined);
    } else {
      throw new BridgeError(
        `cannot canonicalise a value of type ${typeof value}: records are JSON`,
      );
    }
  }

  writeObject(
    value: Record<string, unknown>,
    sorted: boolean,
    skip: readonly string[] | undefined,
  ): void {
    const own = Object.keys(value);
    const keys = sorted ? keyOrderOf(own).sorted : own;
    this.writeByte(0x7b);
    let first = true;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      if (skip?.includes(key)) continue;
      const member = value[key];
      // Undefined members are left out, as JSON.stringify does.
      if (member === undefined) continue;
      if (!first) this.writeByte(0x2c);
      first = false;
      this.writeString(key);
      this.writeByte(0x3a);
      this.writeValue(member, sorted);
    }
    this.writeByte(0x7d);
  }
}

function escapeAscii(bytes: Buffer, at: number, code: number): number {
  const short =
    code === QUOTE
      ? QUOTE
      : code === BACKSLASH
        ? BACKSLASH
        : code === 0x08
          ? 0x62 // b
          : code === 0x09
            ? 0x74 // t
            : code === 0x0a
              ? 0x6e // n
              : code === 0x0c
                ? 0x66 // f
                : code === 0x0d
                  ? 0x72 // r
                  : 0;
  if (short === 0) return unicodeEscape(bytes, at, code);
  bytes[at] = BACKSLASH;
  bytes[at + 1] = short;
  return at + 2;
}

/** Writes `\uxxxx` (lowercase hex, as JSON.stringify) for one code unit. */
function unicodeEscape(bytes: Buffer, at: number, code: number): number {
  bytes[at] = BACKSLASH;
  bytes[at + 1] = 0x75; // u
  bytes[at + 2] = HEX.charCodeAt((code >> 12) & 0xf);
  bytes[at + 3] = HEX.charCodeAt((code >> 8) & 0xf);
  bytes[at + 4] = HEX.charCodeAt((code >> 4) & 0xf);
  bytes[at + 5] = HEX.charCodeAt(code & 0xf);
  return at + 6;
}

/** The writer calls share; one in use (a call from inside a call) makes the caller its own. */
let shared = new JsonByteWriter();

/**
 * Hands the UTF-8 JSON of `value` to `use`, which must not keep the bytes (they are the shared
 * buffer's, overwritten by the next call), and returns what `use` returns. With `sorted`, the
 * members of every object come in code-unit order of their keys (`Array.prototype.sort`'s
 * default), so key order never shows; without it, in the object's own order, which for JSON
 * values gives JSON.stringify's bytes. Undefined members are left out, undefined in arrays is
 * null, -0 is 0, NaN and the infinities are null, lone surrogates `\udxxx`: as JSON.stringify.
 *
 * Throws {@link BridgeError} on values JSON cannot hold (functions, bigints, symbols, undefined).
 * @example writeJsonBytes({ b: 1, a: 2 }, { sorted: true }, (bytes) => bytes.toString()) // '{"a":2,"b":1}'
 */
export function writeJsonBytes<T>(
  value: unknown,
  options: JsonBytesOptions,
  use: (bytes: Buffer) => T,
): T {
  const writer = shared.busy ? new JsonByteWriter() : shared;
  writer.busy = true;
  writer.length = 0;
  try {
    if (isJsonObject(value) && options.skip !== undefined && options.skip.length > 0) {
      writer.writeObject(value, options.sorted, options.skip);
    } else {
      writer.writeValue(value, options.sorted);
    }
    return use(writer.bytes.subarray(0, writer.length));
  } finally {
    writer.busy = false;
    if (writer === shared && writer.bytes.length > KEPT_BYTES_MAX) shared = new JsonByteWriter();
  }
}
