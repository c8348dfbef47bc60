import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { activeSecrets, generateSecret, webhookHeaders } from '../../shared/webhooks/signing.ts';

const bytes = (fill: number) => (size: number) => new Uint8Array(size).fill(fill);

describe('webhook signing', () => {
  it('generates whsec_ secrets of 32 random bytes', () => {
    const secret = generateSecret(bytes(7));
    expect(secret.startsWith('whsec_')).toBe(true);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
  });

  it('produces headers that the official standardwebhooks library verifies', () => {
    const secret = generateSecret(bytes(1));
    const body = JSON.stringify({ id: 'evt_1', type: 'customer.updated', data: { ü: 'ünïcode' } });
    const timestampSeconds = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders({ id: 'evt_1', timestampSeconds, body, secrets: [secret] });
    expect(headers['webhook-id']).toBe('evt_1');
    expect(headers['webhook-timestamp']).toBe(String(timestampSeconds));
    expect(headers['content-type']).toBe('application/json');
    expect(headers['user-agent']).toBe('change-bridge-webhooks/1');
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(headers['webhook-signature']).toBe(
      new Webhook(secret).sign('evt_1', new Date(timestampSeconds * 1000), body),
    );
  });

  it('signs with both secrets while a rotation is in its grace period, so either verifies', () => {
    const oldSecret = generateSecret(bytes(2));
    const newSecret = generateSecret(bytes(3));
    const now = Date.now();
    const subscription = {
      secret: newSecret,
      previousSecret: oldSecret,
      previousSecretExpiresAt: now + 1000,
    };
    const secrets = activeSecrets(subscription, now);
    const body = '{"id":"evt_2"}';
    const headers = webhookHeaders({
      id: 'evt_2',
      timestampSeconds: Math.floor(now / 1000),
      body,
      secrets,
    });
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(() => new Webhook(oldSecret).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(newSecret).verify(body, headers)).not.toThrow();
    expect(activeSecrets(subscription, now + 1000)).toEqual([newSecret]);
  });

  it('signs with every earlier secret still in its grace period, each until its own expiry', () => {
    const [a, b, c, d] = [4, 5, 6, 7].map((seed) => generateSecret(bytes(seed)));
    const now = Date.now();
    const subscription = {
      secret: a!,
      previousSecrets: [
        { secret: b!, expiresAt: now + 2000 },
        { secret: c!, expiresAt: now + 1000 },
      ],
      // A subscription stored before the list: its one earlier secret still counts.
      previousSecret: d!,
      previousSecretExpiresAt: now + 500,
    };
    expect(activeSecrets(subscription, now)).toEqual([a, b, c, d]);
    expect(activeSecrets(subscription, now + 500)).toEqual([a, b, c]);
    expect(activeSecrets(subscription, now + 1500)).toEqual([a, b]);
    expect(activeSecrets(subscription, now + 2000)).toEqual([a]);
  });

  it('produces a signature that fails verification under another secret or another body', () => {
    const secret = generateSecret(bytes(4));
    const body = '{"id":"evt_3"}';
    const headers = webhookHeaders({
      id: 'evt_3',
      timestampSeconds: Math.floor(Date.now() / 1000),
      body,
      secrets: [secret],
    });
    expect(() => new Webhook(generateSecret(bytes(5))).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify('{"id":"evt_4"}', headers)).toThrow();
  });
});
