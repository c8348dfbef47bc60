import { describe, expect, it } from 'vitest';
import { embeddedIpv4, ipv6Bytes } from '../../shared/webhooks/embedded-ipv4.ts';

describe('embeddedIpv4', () => {
  it.each([
    ['::ffff:127.0.0.1', ['127.0.0.1']],
    ['::ffff:7f00:1', ['127.0.0.1']],
    ['::ffff:0:a00:1', ['10.0.0.1']], // IPv4-translated
    ['::127.0.0.1', ['127.0.0.1']],
    ['::7f00:1', ['127.0.0.1']],
    ['64:ff9b::7f00:1', ['127.0.0.1']],
    ['64:ff9b::192.168.1.1', ['192.168.1.1']],
    ['64:ff9b:1:7f00:0:100::', ['127.0.0.1']],
    ['64:ff9b:1::c0a8:101', ['192.168.1.1']],
    ['2002:7f00:1::', ['127.0.0.1']],
    ['2002:a9fe:a9fe:1:2:3:4:5', ['169.254.169.254']],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', ['127.0.0.1']],
    ['2001::a247:27dd', ['93.184.216.34']],
  ])('reads %s as carrying %j', (address, carried) => {
    expect(embeddedIpv4(address)).toEqual(carried);
  });

  it.each(['::', '::1', '2606:2800:220:1::1', 'fe80::1', '127.0.0.1', 'not an address'])(
    'finds nothing in %s',
    (address) => {
      expect(embeddedIpv4(address)).toEqual([]);
    },
  );

  it('expands every textual form to the same 16 bytes', () => {
    const full = ipv6Bytes('0064:ff9b:0000:0000:0000:0000:7f00:0001');
    expect(ipv6Bytes('64:ff9b::7f00:1')).toEqual(full);
    expect(ipv6Bytes('64:ff9b::127.0.0.1')).toEqual(full);
    expect(ipv6Bytes('fe80::1%eth0')).toEqual(ipv6Bytes('fe80::1'));
  });
});
