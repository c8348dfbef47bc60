import { describe, expect, it } from 'vitest';
import { objectMemberText, withArrayMemberEmptied } from '../shared/json-member-text.ts';

/** Admits every object, noting the texts it was given. */
function admitAll() {
  const seen: string[] = [];
  return {
    seen,
    admit: (text: string) => {
      seen.push(text);
      return true;
    },
  };
}

describe('withArrayMemberEmptied', () => {
  it('empties the array of objects under the member, handing over each object as sent', () => {
    const records = [
      { Id: 'a', Notes: 'x' },
      { Id: 'b', Nested: { Customers: [1] } },
    ];
    const json = JSON.stringify({ Customers: records, Cursor: 'c1' });
    const { seen, admit } = admitAll();
    expect(withArrayMemberEmptied(json, 'Customers', admit)).toBe('{"Customers":[],"Cursor":"c1"}');
    expect(seen).toEqual(records.map((record) => JSON.stringify(record)));
  });

  it('follows strings and nesting: quotes, backslashes and brackets inside the records', () => {
    const records = [
      { Id: 'a', Notes: 'say "}]" \\ {[', List: [{ x: '"' }, []], Empty: {} },
      { Id: 'b', Notes: '\\"', Path: 'C:\\\\' },
    ];
    const json = JSON.stringify({ Before: { Customers: 'not this one' }, Customers: records });
    const { seen, admit } = admitAll();
    const emptied = withArrayMemberEmptied(json, 'Customers', admit);
    expect(JSON.parse(emptied ?? 'null')).toEqual({
      Before: { Customers: 'not this one' },
      Customers: [],
    });
    expect(seen.map((text) => JSON.parse(text))).toEqual(records);
  });

  it('takes JSON whitespace between the array and its objects', () => {
    const json = '{ "Customers" : [ {"Id":"a"} ,\n\t{"Id":"b"}\r\n ] , "Cursor" : null }';
    const { seen, admit } = admitAll();
    expect(withArrayMemberEmptied(json, 'Customers', admit)).toBe(
      '{ "Customers" : [] , "Cursor" : null }',
    );
    expect(seen).toEqual(['{"Id":"a"}', '{"Id":"b"}']);
  });

  it('gives back an empty array as it is', () => {
    expect(
      withArrayMemberEmptied('{"Customers":[ ],"Cursor":null}', 'Customers', () => false),
    ).toBe('{"Customers":[],"Cursor":null}');
  });

  it('stops at the first object refused', () => {
    const json = JSON.stringify({ Customers: [{ Id: 'a' }, { Id: 'b' }, { Id: 'c' }] });
    const seen: string[] = [];
    const admit = (text: string) => {
      seen.push(text);
      return !text.includes('"b"');
    };
    expect(withArrayMemberEmptied(json, 'Customers', admit)).toBeUndefined();
    expect(seen).toEqual(['{"Id":"a"}', '{"Id":"b"}']);
  });

  it.each([
    ['no such member', '{"Items":[{"Id":"a"}]}'],
    ['the member is not an array', '{"Customers":{"Id":"a"}}'],
    ['an item is not an object', '{"Customers":[{"Id":"a"},"b"]}'],
    ['an item is an array', '{"Customers":[[{"Id":"a"}]]}'],
    [
      'the member named twice (JSON.parse takes the last)',
      '{"Customers":[],"Customers":[{"Id":"a"}]}',
    ],
    ['the member named twice, the array first', '{"Customers":[{"Id":"a"}],"Customers":[]}'],
    ['an escaped member name', '{"Cust\\u006fmers":[{"Id":"a"}],"Customers":[]}'],
    ['an escaped name elsewhere', '{"Customers":[],"Cur\\u0073or":null}'],
    ['the top level an array', '[{"Customers":[]}]'],
    ['items not separated by commas', '{"Customers":[{"Id":"a"} {"Id":"b"}]}'],
    ['the array never closed', '{"Customers":[{"Id":"a"},'],
    ['an object never closed', '{"Customers":[{"Id":"a"'],
    ['a string never closed', '{"Customers":[{"Id":"a}]}'],
  ])('answers undefined when %s', (_, json) => {
    expect(withArrayMemberEmptied(json, 'Customers', () => true)).toBeUndefined();
  });

  it('agrees with JSON.parse on every page it empties', () => {
    const pages = [
      { Customers: [{ Id: 'a', n: 1.5, t: true, z: null }], Cursor: 'x' },
      { Cursor: null, Customers: [{ Id: '"{[' }], Other: [{ Customers: [{}] }] },
      { Customers: [], Cursor: 'é😀' },
    ];
    for (const page of pages) {
      const emptied = withArrayMemberEmptied(JSON.stringify(page), 'Customers', () => true);
      expect(JSON.parse(emptied ?? 'null')).toEqual({ ...page, Customers: [] });
    }
  });
});

describe('objectMemberText', () => {
  it('is the exact text of the member object', () => {
    expect(objectMemberText('{"a":1,"detail":{"id":"x"}}', 'detail')).toBe('{"id":"x"}');
  });
});
