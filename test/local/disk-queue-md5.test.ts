import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it } from 'vitest';
import { startDiskQueue } from '../../shared/local/disk-queue/disk-queue.ts';
import { withLazyMd5, withMemberOnRead } from '../../shared/local/disk-queue/lazy-md5.ts';
import { toSqsRecord } from '../../shared/local/event-source-loop.ts';
import { LOCAL_CREDENTIALS } from '../../shared/local/local-credentials.ts';

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

describe('a body MD5 computed when read', () => {
  it('reads as the MD5 of the body, in a spread and in JSON, and keeps a value stored before', () => {
    const message = withLazyMd5({ id: 'm1', body: 'Zürich ✓' }, 'md5', 'Zürich ✓');
    expect({ ...message }).toEqual({ id: 'm1', body: 'Zürich ✓', md5: md5('Zürich ✓') });
    expect(JSON.parse(JSON.stringify(message)).md5).toBe(md5('Zürich ✓'));
    expect(message.md5).toBe(md5('Zürich ✓'));
    const answer = withMemberOnRead({ MessageId: 'm1' }, 'MD5OfBody', () => message.md5);
    expect(JSON.parse(JSON.stringify(answer))).toEqual({
      MessageId: 'm1',
      MD5OfBody: md5('Zürich ✓'),
    });
    // A log of an earlier version stored it: that value, as stored.
    expect(withLazyMd5({}, 'md5', 'body', 'stored').md5).toBe('stored');
  });

  it('reaches a Lambda record of the message when read there', () => {
    let reads = 0;
    const message = Object.defineProperty({ MessageId: 'm1', Body: 'b' }, 'MD5OfBody', {
      enumerable: true,
      get: () => {
        reads++;
        return md5('b');
      },
    });
    const record = toSqsRecord(message, 'arn:aws:sqs:eu-west-1:000000000000:q', 'eu-west-1');
    expect(reads).toBe(0);
    expect(record.md5OfBody).toBe(md5('b'));
    expect(reads).toBe(1);
  });
});

describe('the disk queue answers the MD5s SQS would', () => {
  it('to an SDK client that checks every MD5 it is sent, over HTTP and in process', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'disk-queue-md5-'));
    const queue = await startDiskQueue({ path: join(dir, 'queue') });
    cleanup.push(
      () => rm(dir, { recursive: true, force: true }),
      () => queue.close(),
    );
    const url = await queue.createQueue('md5');
    // The SDK's own check (its default) throws on an MD5 that does not match the body.
    const checking = new SQSClient({
      region: 'eu-west-1',
      endpoint: queue.endpoint,
      credentials: LOCAL_CREDENTIALS,
    });
    cleanup.push(async () => checking.destroy());
    const bodies = ['{"a":1}', 'Zürich ✓', 'x'.repeat(10_000)];
    await checking.send(new SendMessageCommand({ QueueUrl: url, MessageBody: bodies[0] }));
    const batch = await checking.send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: bodies.slice(1).map((body, i) => ({ Id: `e${i}`, MessageBody: body })),
      }),
    );
    expect(batch.Successful?.map((entry) => entry.MD5OfMessageBody)).toEqual(
      bodies.slice(1).map(md5),
    );
    const received = await checking.send(
      new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }),
    );
    expect(received.Messages?.map((m) => [m.Body, m.MD5OfBody])).toEqual(
      bodies.map((body) => [body, md5(body)]),
    );
    // The bridge's own client calls the queue in process: the same values, when read.
    const sent = await queue.client.send(
      new SendMessageCommand({ QueueUrl: url, MessageBody: 'in process' }),
    );
    expect(sent.MD5OfMessageBody).toBe(md5('in process'));
  });
});
