import { describe, expect, it } from 'vitest';
import { endpointOfUrl } from '../../shared/webhooks/endpoint-of-url.ts';

describe('endpointOfUrl: the receiver at a URL is one endpoint however the URL is spelled', () => {
  it('gives two spellings of one URL the same endpoint (scheme and host case, default port, empty path)', () => {
    expect(endpointOfUrl('HTTP://127.0.0.1:9004/z')).toBe(endpointOfUrl('http://127.0.0.1:9004/z'));
    expect(endpointOfUrl('https://Hooks.Example.com:443/in')).toBe(
      endpointOfUrl('https://hooks.example.com/in'),
    );
    expect(endpointOfUrl('https://hooks.example.com')).toBe(
      endpointOfUrl('https://hooks.example.com/'),
    );
  });

  it('keeps URLs that reach different resources apart (path case, port, query)', () => {
    expect(endpointOfUrl('https://hooks.example.com/In')).not.toBe(
      endpointOfUrl('https://hooks.example.com/in'),
    );
    expect(endpointOfUrl('https://hooks.example.com:8443/in')).not.toBe(
      endpointOfUrl('https://hooks.example.com/in'),
    );
    expect(endpointOfUrl('https://hooks.example.com/in?a=1')).not.toBe(
      endpointOfUrl('https://hooks.example.com/in'),
    );
  });

  it('keys a URL already in its usual form as before (a hash of the URL itself), and one it cannot parse too', () => {
    expect(endpointOfUrl('https://hooks.example.com/in')).toBe(
      'url:XYOKHOr3It4FhRBPyWpEVTLa57QTI8R3KF6dLimYPuA',
    );
    expect(endpointOfUrl('not a url')).toMatch(/^url:/);
  });
});
