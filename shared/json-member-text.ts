const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;

/**
 * The exact source text of the object that is the value of member `name` of the JSON object
 * `json`, when `json` names it once, unescaped, and no member name of its own is escaped (so
 * JSON.parse reads the same member); otherwise undefined (the caller serialises the parsed value
 * instead). `json` must be valid JSON (JSON.parse accepted it): the scan follows strings and
 * nesting, it does not validate. Pure; allocates only the returned slice.
 * @example objectMemberText('{"a":1,"detail":{"id":"x"}}', 'detail') === '{"id":"x"}'
 */
export function objectMemberText(json: string, name: string): string | undefined {
  const span = uniqueMemberValue(json, name, (start) =>
    json.charCodeAt(start) === OPEN_BRACE ? valueEnd(json, start) : -1,
  );
  return span && json.slice(span.start, span.end);
}

/**
 * `json` with the array that is the value of its member `name` emptied (`"name":[]`), when
 * `json` is an object that names `name` once, unescaped, no member name of its own escaped (so
 * JSON.parse reads the same member), and that array holds only objects, each of which `admit`
 * takes (it is given each object's exact source text, in order, and answers whether to leave
 * it out); otherwise undefined, from the first object refused on. The scan follows strings and
 * nesting only: whether the text around the array is JSON is for the parse of the answer to
 * tell, whether an object's text is for `admit`. Pure apart from `admit`.
 * @example withArrayMemberEmptied('{"items":[{"a":1}],"next":null}', 'items', () => true) === '{"items":[],"next":null}'
 */
export function withArrayMemberEmptied(
  json: string,
  name: string,
  admit: (objectText: string) => boolean,
): string | undefined {
  const span = uniqueMemberValue(json, name, (start) => admittedArrayEnd(json, start, admit));
  return span && `${json.slice(0, span.start + 1)}${json.slice(span.end - 1)}`;
}

/** Where a member's value starts and ends in its object's text (`end` exclusive). */
interface ValueSpan {
  start: number;
  end: number;
}

/**
 * Where the value of member `name` of the JSON object `json` is, when `json` names it once,
 * unescaped, no member name of its own is escaped, and `valueEndOf` takes the value (it answers
 * the index just past it, or -1); otherwise undefined. Follows strings and nesting only.
 */
function uniqueMemberValue(
  json: string,
  name: string,
  valueEndOf: (start: number) => number,
): ValueSpan | undefined {
  let depth = 0;
  let span: ValueSpan | undefined;
  for (let i = 0; i < json.length; i++) {
    const code = json.charCodeAt(i);
    if (code === QUOTE) {
      const close = closingQuote(json, i);
      if (close === -1) return undefined;
      if (depth === 1 && isMemberName(json, close)) {
        if (hasBackslash(json, i + 1, close)) return undefined;
        if (close - i - 1 === name.length && json.startsWith(name, i + 1)) {
          if (span !== undefined) return undefined;
          const start = valueStart(json, close);
          const end = valueEndOf(start);
          if (end === -1) return undefined;
          span = { start, end };
          // Past the value: the scan goes on at depth 1.
          i = end - 1;
          continue;
        }
      }
      i = close;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (depth === 0 && code !== OPEN_BRACE) return undefined;
      depth++;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
    }
  }
  return span;
}

/**
 * The index just past the `]` closing the array of objects that opens at `open`, each object's
 * text taken by `admit`; -1 when the value there is not such an array or `admit` refuses one.
 */
function admittedArrayEnd(
  json: string,
  open: number,
  admit: (objectText: string) => boolean,
): number {
  if (json.charCodeAt(open) !== OPEN_BRACKET) return -1;
  let at = nextNonSpace(json, open + 1);
  if (json.charCodeAt(at) === CLOSE_BRACKET) return at + 1;
  for (;;) {
    if (json.charCodeAt(at) !== OPEN_BRACE) return -1;
    const end = valueEnd(json, at);
    if (end === -1 || !admit(json.slice(at, end))) return -1;
    at = nextNonSpace(json, end);
    const code = json.charCodeAt(at);
    if (code === CLOSE_BRACKET) return at + 1;
    if (code !== COMMA) return -1;
    at = nextNonSpace(json, at + 1);
  }
}

/** The index just past the object or array that opens at `open`; -1 when the text ends first. */
function valueEnd(json: string, open: number): number {
  let depth = 0;
  for (let i = open; i < json.length; i++) {
    const code = json.charCodeAt(i);
    if (code === QUOTE) {
      i = closingQuote(json, i);
      if (i === -1) return -1;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth++;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** The index of the quote that closes the string opened at `open`. */
function closingQuote(json: string, open: number): number {
  let close = json.indexOf('"', open + 1);
  while (escaped(json, close)) close = json.indexOf('"', close + 1);
  return close;
}

/**
 * Whether a backslash is among the characters from `from` up to `to` (a string's own text): a
 * search bounded by the string, where `lastIndexOf` from its end ran back through all the text
 * before it when no backslash was there (a page's last member name, after its every record).
 */
function hasBackslash(json: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (json.charCodeAt(i) === BACKSLASH) return true;
  return false;
}

/** Whether the character at `at` follows an odd number of backslashes. */
function escaped(json: string, at: number): boolean {
  let count = 0;
  for (let i = at - 1; json.charCodeAt(i) === BACKSLASH; i--) count++;
  return count % 2 === 1;
}

/** Whether the string closed at `close` is a member name: a colon follows it. */
function isMemberName(json: string, close: number): boolean {
  return json.charCodeAt(nextNonSpace(json, close + 1)) === COLON;
}

/** Where the value of the member whose name closes at `close` begins. */
function valueStart(json: string, close: number): number {
  return nextNonSpace(json, nextNonSpace(json, close + 1) + 1);
}

/** The first index from `from` that is not JSON whitespace. */
function nextNonSpace(json: string, from: number): number {
  let i = from;
  for (;;) {
    const code = json.charCodeAt(i);
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return i;
    i++;
  }
}
