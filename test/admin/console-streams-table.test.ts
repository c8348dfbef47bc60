import { describe, expect, it } from 'vitest';
import { streamLastError } from '../../shared/admin/console/streams-table.js';

describe('the Last error column of the console streams table', () => {
  const setAside = {
    error:
      'customers/getAll: record set aside: the response breaks the contract at Customers[1].LastName',
    at: '2026-03-01T00:00:00.000Z',
  };

  it('shows the latest record set aside when the polls succeed, and the last poll error before it', () => {
    expect(streamLastError({ lastError: null, lastSetAside: setAside })).toBe(setAside.error);
    expect(streamLastError({ lastError: 'HTTP 500', lastSetAside: setAside })).toBe('HTTP 500');
    expect(streamLastError({ lastError: null, lastSetAside: null })).toBe('');
    // A bridge that predates the field.
    expect(streamLastError({ lastError: null })).toBe('');
  });
});
