/**
 * Records whose canonical JSON and content hash are pinned: every JSON oddity a connector could
 * send (unicode, lone surrogates, control characters, numbers JSON.stringify writes its own way,
 * keys an object enumerates first), so a change of serializer cannot move a stored hash.
 */
export function awkwardRecord(): Record<string, unknown> {
  const parsed = JSON.parse(
    '{"10":"ten","9":"nine","0":0,"__proto__":{"b":1,"a":2},"-1":"minus","01":"lead"}',
  ) as Record<string, unknown>;
  return {
    Id: 'c-ü-1',
    LastName: 'Иванова',
    City: '東京',
    Emoji: 'smile 😀 and 𝄞',
    LoneHigh: 'a\ud800b',
    LoneLow: '\udc00z',
    Reversed: '\udc00\ud800',
    HighAtEnd: 'end\udbff',
    Separators: 'line\u2028para\u2029',
    Controls: '\u0000\u0001\u0007\b\t\n\u000b\f\r\u001f\u007f',
    Quotes: 'say "hi" \\ back/slash',
    Numbers: [
      1e21,
      1e-7,
      -0,
      0.1 + 0.2,
      Number.MAX_VALUE,
      -1.5e-300,
      5e-324,
      123456789012345680000,
    ],
    NotFinite: [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY],
    Empty: { Object: {}, Array: [], String: '' },
    Missing: undefined,
    Undefined: [1, undefined, null],
    Nested: { UpdatedUtc: 'kept', z: [{ y: 1, x: [{ w: true, v: false }] }], a: null },
    Keys: parsed,
    ключ: 'unicode key',
    'Z"q\\': 'escaped key',
    UpdatedUtc: '2026-01-01T00:00:00.000Z',
  };
}
