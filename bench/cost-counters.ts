import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { toEventBridgeEnvelope } from '../shared/publish/event-bridge-envelope.ts';

/** DynamoDB commands and the capacity units they consumed. */
export interface DynamoCounts {
  commands: Map<string, number>;
  readUnits: number;
  writeUnits: number;
}

type Capacity = { CapacityUnits?: number; ReadCapacityUnits?: number; WriteCapacityUnits?: number };
const WRITE_COMMANDS = /^(Put|Update|Delete|BatchWrite)/;

function capacityOf(output: unknown): Capacity[] {
  if (typeof output !== 'object' || output === null || !('ConsumedCapacity' in output)) return [];
  const consumed = output.ConsumedCapacity;
  if (Array.isArray(consumed)) return consumed;
  return typeof consumed === 'object' && consumed !== null ? [consumed] : [];
}

/**
 * Counts every command a DynamoDB client sends (the document client shares its stack) and
 * asks for `ReturnConsumedCapacity: TOTAL`, summing the units the server reports.
 */
export function countDynamoDb(client: DynamoDBClient): DynamoCounts {
  const counts: DynamoCounts = { commands: new Map(), readUnits: 0, writeUnits: 0 };
  // Serialize step, high priority: after the document client has marshalled the input.
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName ?? 'unknown').replace(/Command$/, '');
      counts.commands.set(name, (counts.commands.get(name) ?? 0) + 1);
      const input = args.input as Record<string, unknown>;
      if (name !== 'CreateTable' && name !== 'DescribeTable')
        input.ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      for (const capacity of capacityOf(result.output)) {
        const units = capacity.CapacityUnits ?? 0;
        if (WRITE_COMMANDS.test(name)) counts.writeUnits += units;
        else counts.readUnits += units;
      }
      return result;
    },
    { step: 'serialize', priority: 'high', name: 'benchCount' },
  );
  return counts;
}

/** SQS requests by API action. */
export function countSqs(client: SQSClient): Map<string, number> {
  const counts = new Map<string, number>();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName ?? 'unknown').replace(/Command$/, '');
      counts.set(name, (counts.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'benchCountSqs' },
  );
  return counts;
}

/** What the stand-in bus saw. */
export interface BusCounts {
  putEventsRequests: number;
  entries: number;
  /** PutEvents bills each entry per 64 KB chunk. */
  billedChunks: number;
  entryBytes: number;
}

/**
 * An EventBridge client whose PutEvents is answered here (no emulator exists): every entry
 * is accepted, counted, and delivered as EventBridge's SQS target does, one SendMessage of
 * the envelope per event, to `queueUrl`.
 */
export function countingBus(sqs: SQSClient, queueUrl: string) {
  const counts: BusCounts = { putEventsRequests: 0, entries: 0, billedChunks: 0, entryBytes: 0 };
  const client = new EventBridgeClient({
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:9',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'PutEventsCommand') return next(args);
      const input = args.input as { Entries?: PutEventsRequestEntry[] };
      const entries = input.Entries ?? [];
      counts.putEventsRequests += 1;
      for (const entry of entries) {
        const bytes =
          Buffer.byteLength(entry.Detail ?? '') +
          Buffer.byteLength(entry.DetailType ?? '') +
          Buffer.byteLength(entry.Source ?? '');
        counts.entries += 1;
        counts.entryBytes += bytes;
        counts.billedChunks += Math.max(1, Math.ceil(bytes / 65_536));
        const envelope = toEventBridgeEnvelope(entry, {
          id: randomUUID(),
          account: '000000000000',
          region: 'us-east-1',
          receivedAt: new Date(),
        });
        await sqs.send(
          new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(envelope) }),
        );
      }
      const output = {
        $metadata: {},
        FailedEntryCount: 0,
        Entries: entries.map(() => ({ EventId: randomUUID() })),
      };
      return { output, response: {} } as Awaited<ReturnType<typeof next>>;
    },
    { step: 'initialize', name: 'benchBus' },
  );
  return { client, counts };
}
