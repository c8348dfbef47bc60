import { afterEach, describe, expect, it } from 'vitest';
import {
  type DemoReceiver,
  type ReceivedWebhook,
  startDemoReceiver,
} from '../../shared/local/demo-receiver.ts';
import { serveSqsJson } from '../../shared/local/disk-queue/sqs-json-server.ts';
import { LOCAL_CREDENTIALS } from '../../shared/local/local-credentials.ts';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('a thrown value that is not an Error', () => {
  it.each([
    ['undefined', undefined, 'undefined thrown, not an Error'],
    ['an object holding a token', { token: 'secret-1' }, 'a thrown Object, not an Error'],
  ])(
    'from the secret source (%s) is reported by the demo receiver, which answers 401',
    async (_label, thrown, reason) => {
      const seen: ReceivedWebhook[] = [];
      const receiver: DemoReceiver = await startDemoReceiver((webhook) => seen.push(webhook));
      closers.push(() => receiver.close());
      receiver.useSecretSource(() => Promise.reject(thrown));
      const response = await fetch(receiver.url, {
        method: 'POST',
        body: '{}',
        headers: { 'webhook-id': 'msg_1', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' },
        signal: AbortSignal.timeout(2_000),
      });
      expect(response.status).toBe(401);
      expect(seen).toEqual([{ verified: false, id: 'msg_1', reason }]);
    },
  );

  it.each([
    ['undefined', undefined, 'undefined thrown, not an Error'],
    ['an object holding a token', { token: 'secret-1' }, 'a thrown Object, not an Error'],
  ])(
    'from a disk-queue handler (%s) is answered as an InternalError naming its kind only',
    async (_label, thrown, message) => {
      const { server, endpoint } = await serveSqsJson({
        SendMessage: () => Promise.reject(thrown),
      });
      closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
      const response = await fetch(endpoint, {
        method: 'POST',
        body: '{}',
        headers: {
          'x-amz-target': 'AmazonSQS.SendMessage',
          authorization: `AWS4-HMAC-SHA256 Credential=${LOCAL_CREDENTIALS.accessKeyId}/x`,
        },
        signal: AbortSignal.timeout(2_000),
      });
      expect(response.status).toBe(500);
      const body = await response.text();
      expect(JSON.parse(body)).toEqual({ __type: 'com.amazonaws.sqs#InternalError', message });
      expect(body).not.toContain('secret-1');
    },
  );
});
