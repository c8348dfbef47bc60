import { describe, expect, it } from 'vitest';
import {
  EMPTY_ITEM_MESSAGE as CONSOLE_EMPTY_ITEM_MESSAGE,
  readCommaField,
} from '../../shared/admin/console/comma-field.js';
import { EMPTY_ITEM_MESSAGE } from '../../shared/comma-list.ts';

describe("the console's comma-separated form fields", () => {
  it('reads trimmed items, and blank text as no item', () => {
    expect(readCommaField(' customer, resource ', 'Entity types')).toEqual({
      items: ['customer', 'resource'],
    });
    expect(readCommaField('  ', 'Entity types')).toEqual({ items: [] });
    expect(readCommaField(null, 'Connections')).toEqual({ items: [] });
  });

  it('refuses an empty item with the message the CLI and the API give, naming its place', () => {
    expect(readCommaField('customer,,resource', 'Entity types')).toEqual({
      problem: `Entity types: item 2 ${EMPTY_ITEM_MESSAGE}`,
    });
    expect(readCommaField('hotel-1,', 'Connections')).toEqual({
      problem: `Connections: item 2 ${EMPTY_ITEM_MESSAGE}`,
    });
    expect(readCommaField(', hotel-1', 'Connections')).toEqual({
      problem: `Connections: item 1 ${EMPTY_ITEM_MESSAGE}`,
    });
    // Several: every one, in order, as the CLI names them.
    expect(readCommaField(',customer,,', 'Entity types')).toEqual({
      problem: `Entity types: item 1 ${EMPTY_ITEM_MESSAGE}; item 3 ${EMPTY_ITEM_MESSAGE}; item 4 ${EMPTY_ITEM_MESSAGE}`,
    });
    expect(CONSOLE_EMPTY_ITEM_MESSAGE).toBe(EMPTY_ITEM_MESSAGE);
  });
});
