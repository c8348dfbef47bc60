import { describe, expect, it } from 'vitest';
import { neverReachedServer } from '../../shared/connector/unsent-request.ts';

const withCode = (code: string) => Object.assign(new Error(`failed: ${code}`), { code });

describe('neverReachedServer', () => {
  it('tells a refused connection, an unknown host and a connect timeout: nothing was sent', () => {
    for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT'])
      expect(neverReachedServer(withCode(code))).toBe(true);
  });

  it('looks through the causes of a wrapped error', () => {
    const wrapped = new Error('fetch failed', { cause: withCode('ECONNREFUSED') });
    expect(neverReachedServer(new Error('outer', { cause: wrapped }))).toBe(true);
  });

  it('counts as sent what may have arrived: a reset, a closed socket, a timeout, anything unknown', () => {
    for (const code of ['ECONNRESET', 'UND_ERR_SOCKET', 'UND_ERR_HEADERS_TIMEOUT', 'EPIPE'])
      expect(neverReachedServer(withCode(code))).toBe(false);
    expect(neverReachedServer(new Error('no complete answer within 100 ms'))).toBe(false);
    expect(neverReachedServer('ECONNREFUSED')).toBe(false);
    expect(neverReachedServer(undefined)).toBe(false);
  });

  it('ends on an error whose causes loop', () => {
    const looped: Error & { cause?: unknown } = new Error('a');
    looped.cause = looped;
    expect(neverReachedServer(looped)).toBe(false);
  });
});
