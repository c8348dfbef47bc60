import { describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import type { HostResolver } from '../../shared/dns/system-resolver.ts';
import { UndiciWebhookSender } from '../../shared/webhooks/http-sender.ts';
import { checkWebhookUrl } from '../../shared/webhooks/url-policy.ts';

/*
 * The addresses no subscription may reach even where private ones are allowed (local runs,
 * WEBHOOK_ALLOW_PRIVATE=true): the cloud's endpoints that hand out the machine's or the task's
 * credentials. A delivery keeps an excerpt of the answer, which the admin API and the console
 * show: a subscription posting to one would read the role's keys.
 */

const CREDENTIAL_ENDPOINTS = [
  '169.254.169.254', // EC2 instance metadata (IMDS)
  'fd00:ec2::254', // IMDS over IPv6
  '169.254.170.2', // ECS task credentials (Fargate, CodeBuild)
  '169.254.170.23', // EKS Pod Identity agent
  'fd00:ec2::23', // EKS Pod Identity agent over IPv6
  '100.100.100.200', // Alibaba Cloud metadata
];

const literal = (address: string) => (address.includes(':') ? `[${address}]` : address);

const resolvesTo =
  (address: string): HostResolver =>
  async () => [{ address, family: address.includes(':') ? 6 : 4 }];

describe('cloud credential endpoints are refused whatever WEBHOOK_ALLOW_PRIVATE says', () => {
  it.each(CREDENTIAL_ENDPOINTS)('refuses a subscription to %s', async (address) => {
    const check = await checkWebhookUrl(
      `http://${literal(address)}/latest/meta-data/`,
      { allowPrivate: true },
      resolvesTo(address),
    );
    expect(check.ok).toBe(false);
  });

  it.each(CREDENTIAL_ENDPOINTS)('refuses a host name that resolves to %s', async (address) => {
    const check = await checkWebhookUrl(
      'http://credentials.example.test/in',
      { allowPrivate: true },
      resolvesTo(address),
    );
    expect(check.ok).toBe(false);
  });

  it('refuses them carried in an IPv4-mapped IPv6 address', async () => {
    const check = await checkWebhookUrl(
      'http://[::ffff:169.254.170.2]/v2/credentials/x',
      { allowPrivate: true },
      resolvesTo('::ffff:169.254.170.2'),
    );
    expect(check.ok).toBe(false);
  });

  it.each(CREDENTIAL_ENDPOINTS)(
    'does not connect at delivery time to a host that resolves to %s',
    async (address) => {
      const sender = new UndiciWebhookSender({
        policy: { allowPrivate: true },
        resolve: resolvesTo(address),
        clock: systemClock,
        timeoutMs: 2000,
      });
      try {
        const result = await sender.send({
          url: 'http://credentials.example.test/in',
          headers: {},
          body: '{}',
        });
        expect(result).toMatchObject({ kind: 'error', error: 'blocked' });
      } finally {
        await sender.close();
      }
    },
  );

  it('still allows the rest of link-local and private addresses locally', async () => {
    for (const address of ['169.254.170.3', '169.254.10.10', '100.100.100.201', '10.0.0.5']) {
      const check = await checkWebhookUrl(
        `http://${address}/in`,
        { allowPrivate: true },
        resolvesTo(address),
      );
      expect(check.ok, address).toBe(true);
    }
  });
});
