import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import type { Clock } from '../../clock.ts';
import { BridgeError, describeThrown } from '../../errors.ts';
import { DUE_AT_ATTRIBUTE, WAITS_IN_LINE_ATTRIBUTE } from '../../webhooks/queue.ts';
import { refuseForeignCallers } from '../loopback-only.ts';
import { withMemberOnRead } from './lazy-md5.ts';
import type { LogQueueStore } from './log-queue-store.ts';
import type { ReceivedMessage } from './queue-messages.ts';

/**
 * This queue's own attribute in `GetQueueAttributes` answers (SQS has none like it): of the
 * delayed messages, those sent as waiting for their turn in a slow endpoint's line.
 */
export const DELAYED_IN_LINE_ATTRIBUTE = 'BridgeApproximateNumberOfMessagesDelayedInLine';

const InLineAttributesSchema = z.looseObject({
  [WAITS_IN_LINE_ATTRIBUTE]: z.looseObject({ StringValue: z.literal('line') }),
});

/** Whether a sent message's attributes mark it as waiting in an endpoint's line. */
function waitsInLine(attributes: unknown): boolean {
  return attributes !== undefined && InLineAttributesSchema.safeParse(attributes).success;
}

const DueAtAttributesSchema = z.looseObject({
  [DUE_AT_ATTRIBUTE]: z.looseObject({ StringValue: z.coerce.number().int().nonnegative() }),
});

/** When a sent message is due to the millisecond (DUE_AT_ATTRIBUTE), if its attributes say. */
function dueAtOf(attributes: unknown): number | undefined {
  if (attributes === undefined) return undefined;
  return DueAtAttributesSchema.safeParse(attributes).data?.[DUE_AT_ATTRIBUTE].StringValue;
}

/** A sent message's group (SQS `MessageGroupId`), when it has one. */
function groupOf(messageGroupId: unknown): string | undefined {
  return typeof messageGroupId === 'string' ? messageGroupId : undefined;
}

/** The name of this queue's own operation that moves a message group (see sqsJsonHandlers). */
export const MOVE_MESSAGE_GROUP = 'BridgeMoveMessageGroup';

type Json = Record<string, unknown>;
/** One SQS operation: its JSON input to its JSON output; `signal` ends a long poll early. */
export type SqsJsonHandler = (input: Json, signal?: AbortSignal) => Promise<Json>;
type Handler = SqsJsonHandler;

/** An SQS error answer: `type` is the error code the SDK names its exception after. */
export class SqsFault extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
    this.name = type;
  }
}

/** The SQS operations the local adapters use, over the AWS JSON 1.0 protocol of the SDK. */
export function sqsJsonHandlers(
  openStore: (queueName: string) => LogQueueStore,
  clock: Clock,
  endpoint: () => string,
  closed: AbortSignal,
): Record<string, Handler> {
  const queues = new Map<string, LocalQueue>();
  const queueOf = (input: Json) => {
    const name =
      String(input.QueueUrl ?? '')
        .split('/')
        .pop() ?? '';
    const queue = queues.get(name);
    if (!queue) throw new SqsFault('QueueDoesNotExist', `no queue ${input.QueueUrl}`);
    return queue;
  };
  const wire = (message: ReceivedMessage) =>
    withMemberOnRead(
      {
        MessageId: message.id,
        ReceiptHandle: message.receiptHandle,
        Body: message.body,
        Attributes: {
          ApproximateReceiveCount: String(message.receiveCount),
          SentTimestamp: String(message.sentAt),
          ApproximateFirstReceiveTimestamp: String(message.firstReceiveAt),
        },
      },
      'MD5OfBody',
      () => message.md5,
    );
  return {
    CreateQueue: async (input) => {
      const name = String(input.QueueName);
      const attributes = (input.Attributes ?? {}) as Record<string, string>;
      if (!queues.has(name)) {
        queues.set(name, {
          store: openStore(name),
          visibilitySeconds: Number(attributes.VisibilityTimeout ?? 30),
          waiting: new Set(),
        });
      }
      return { QueueUrl: `${endpoint()}/000000000000/${name}` };
    },
    SendMessage: async (input) => {
      const queue = queueOf(input);
      const [sent] = queue.store.send([
        {
          body: String(input.MessageBody),
          delaySeconds: Number(input.DelaySeconds ?? 0),
          dueAt: dueAtOf(input.MessageAttributes),
          inLine: waitsInLine(input.MessageAttributes),
          group: groupOf(input.MessageGroupId),
        },
      ]);
      wakeReceiver(queue);
      return withMemberOnRead({ MessageId: sent!.id }, 'MD5OfMessageBody', () => sent!.md5);
    },
    SendMessageBatch: async (input) => {
      const entries = input.Entries as Array<{
        Id: string;
        MessageBody: string;
        DelaySeconds?: number;
        MessageAttributes?: unknown;
        MessageGroupId?: unknown;
      }>;
      const queue = queueOf(input);
      const sent = queue.store.send(
        entries.map((e) => ({
          body: e.MessageBody,
          delaySeconds: e.DelaySeconds ?? 0,
          dueAt: dueAtOf(e.MessageAttributes),
          inLine: waitsInLine(e.MessageAttributes),
          group: groupOf(e.MessageGroupId),
        })),
      );
      wakeReceiver(queue);
      return {
        Successful: sent.map((m, i) =>
          withMemberOnRead(
            { Id: entries[i]!.Id, MessageId: m.id },
            'MD5OfMessageBody',
            () => m.md5,
          ),
        ),
        Failed: [],
      };
    },
    ReceiveMessage: async (input, signal) => {
      const queue = queueOf(input);
      const max = Number(input.MaxNumberOfMessages ?? 1);
      const visibilityMs = Number(input.VisibilityTimeout ?? queue.visibilitySeconds) * 1000;
      const deadline = clock.now() + Number(input.WaitTimeSeconds ?? 0) * 1000;
      // The caller's signal wakes the current wait through one listener for the whole poll, not
      // AbortSignal.any per wait: the event source loop passes one signal for the whole run, and
      // Node 20 keeps a reference to every signal made from it with `any` for as long as it
      // lives: about 140 a second, some 25 MB of heap an hour, with every consumer waiting.
      let arrival = new AbortController();
      const wakeOnAbort = () => arrival.abort();
      signal?.addEventListener('abort', wakeOnAbort, { once: true });
      try {
        for (;;) {
          // Listening before looking: a send that lands after the look still wakes this poll.
          arrival = new AbortController();
          queue.waiting.add(arrival);
          try {
            // A poll woken by the queue's closing takes nothing: its files are about to close.
            const messages = closed.aborted ? [] : queue.store.receive(max, visibilityMs);
            if (messages.length > 0 || clock.now() >= deadline || closed.aborted)
              return { Messages: messages.map(wire) };
            if (signal?.aborted) throw abortError();
            // A message coming due sooner wakes one poll then (see wakeWhenDue).
            wakeWhenDue(queue, clock);
            await clock.sleep(RECEIVE_POLL_MS, arrival.signal).catch(() => undefined);
          } finally {
            queue.waiting.delete(arrival);
          }
        }
      } finally {
        signal?.removeEventListener('abort', wakeOnAbort);
      }
    },
    DeleteMessage: async (input) => {
      queueOf(input).store.delete([String(input.ReceiptHandle)]);
      return {};
    },
    DeleteMessageBatch: async (input) => {
      const entries = input.Entries as Array<{ Id: string; ReceiptHandle: string }>;
      queueOf(input).store.delete(entries.map((entry) => entry.ReceiptHandle));
      return { Successful: entries.map((e) => ({ Id: e.Id })), Failed: [] };
    },
    ChangeMessageVisibility: async (input) => {
      const queue = queueOf(input);
      const timeout = Number(input.VisibilityTimeout ?? 0);
      const changed = queue.store.changeVisibility(String(input.ReceiptHandle), timeout);
      if (changed === undefined)
        throw new SqsFault('ReceiptHandleIsInvalid', 'stale receipt handle');
      // Visible again at once: as good as a send for a waiting poll.
      if (timeout === 0) wakeReceiver(queue);
      return {};
    },
    /**
     * This queue's own operation (SQS has none like it): moves every message of group
     * `MessageGroupId` from `SourceQueueUrl` to the back of `QueueUrl`, oldest first, unless one
     * of them is in flight or delayed: then none, and `Held` says how many are (see
     * LogQueueStore.takeGroup). Answers `{ Moved, Held }`.
     */
    [MOVE_MESSAGE_GROUP]: async (input) => {
      const source = queueOf({ QueueUrl: input.SourceQueueUrl });
      const target = queueOf(input);
      const { taken, held } = source.store.takeGroup(String(input.MessageGroupId), (bodies) => {
        target.store.send(bodies.map((body) => ({ body, delaySeconds: 0 })));
      });
      if (taken > 0) wakeReceiver(target);
      return { Moved: taken, Held: held };
    },
    GetQueueAttributes: async (input) => {
      const counts = queueOf(input).store.counts();
      return {
        Attributes: {
          ApproximateNumberOfMessages: String(counts.visible),
          ApproximateNumberOfMessagesNotVisible: String(counts.inFlight),
          ApproximateNumberOfMessagesDelayed: String(counts.delayed),
          [DELAYED_IN_LINE_ATTRIBUTE]: String(counts.delayedInLine),
        },
      };
    },
  };
}

/**
 * How often a waiting long poll looks for messages again when no send wakes it: delayed
 * messages and expired visibility timeouts become visible without a send.
 */
const RECEIVE_POLL_MS = 250;

/** A queue of the local endpoint, and the long polls waiting on it. */
interface LocalQueue {
  store: LogQueueStore;
  visibilitySeconds: number;
  /** One per waiting long poll, oldest first: a send aborts one, so that poll looks at once. */
  waiting: Set<AbortController>;
  /** When the armed wake of {@link wakeWhenDue} fires, if one is armed. */
  wakeAt?: number;
}

/**
 * Arms one wake of a waiting long poll for when the queue's next message comes due, if that is
 * within {@link RECEIVE_POLL_MS} (a later one is nearer by the polls' next looks): a retry due
 * at 5.3 s is then taken at 5.3 s, not at the poll's next look, up to 250 ms on. One timer per
 * queue, waking one poll, as a send does: not every waiting poll at every due time.
 */
function wakeWhenDue(queue: LocalQueue, clock: Clock): void {
  const next = queue.store.nextVisibleAt();
  if (next === undefined) return;
  const inMs = Math.max(0, next - clock.now());
  if (inMs >= RECEIVE_POLL_MS || (queue.wakeAt !== undefined && queue.wakeAt <= next)) return;
  queue.wakeAt = next;
  void clock.sleep(inMs).then(() => {
    if (queue.wakeAt === next) queue.wakeAt = undefined;
    wakeReceiver(queue);
  });
}

/**
 * Wakes the long poll that has waited longest on `queue` (a send just landed): it takes up to
 * a batch's worth at once, the ten of a send among them; the others keep waiting, so a send does
 * not make every idle consumer scan the queue.
 */
function wakeReceiver(queue: LocalQueue): void {
  const [first] = queue.waiting;
  if (!first) return;
  queue.waiting.delete(first);
  first.abort();
}

/** What an aborted SDK request rejects with. */
function abortError(): Error {
  const error = new Error('Request aborted');
  error.name = 'AbortError';
  return error;
}

async function readJson(request: IncomingMessage): Promise<Json> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return chunks.length === 0 ? {} : (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json);
}

/**
 * Serves `handlers` on 127.0.0.1 and a free port, to the bridge's own clients only
 * (`refuseForeignCallers`); resolves with the server and its URL.
 */
export async function serveSqsJson(
  handlers: Record<string, Handler>,
): Promise<{ server: Server; endpoint: string }> {
  const server = refuseForeignCallers(
    createServer((request, response) => {
      const operation = String(request.headers['x-amz-target'] ?? '').replace('AmazonSQS.', '');
      const reply = (status: number, body: Json) => {
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
        response.end(JSON.stringify(body));
      };
      void (async () => {
        try {
          const handler = handlers[operation];
          if (!handler) throw new SqsFault('UnsupportedOperation', `${operation} is not offered`);
          reply(200, await handler(await readJson(request)));
        } catch (error) {
          const type = error instanceof SqsFault ? error.type : 'InternalError';
          reply(error instanceof SqsFault ? 400 : 500, {
            __type: `com.amazonaws.sqs#${type}`,
            message: describeThrown(error),
          });
        }
      })();
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string')
    throw new BridgeError('disk queue did not report a TCP address');
  return { server, endpoint: `http://127.0.0.1:${(address satisfies AddressInfo).port}` };
}
