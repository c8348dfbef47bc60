import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  EventBridgeClient,
  type PutEventsRequestEntry,
  type Rule,
} from '@aws-sdk/client-eventbridge';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { routesDocumentClients } from '../shared/state/document-client.ts';

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
  if (routesDocumentClients(client)) {
    // The stores' commands would skip the SDK and its middleware: nothing would be counted.
    throw new Error('countDynamoDb: the store answers in process; start it with transport "http"');
  }
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

/** SQS requests by API action, and the requests SQS bills (one per 64 KB chunk of payload). */
export interface SqsCounts {
  requests: Map<string, number>;
  billed: Map<string, number>;
  clear(): void;
}

const CHUNK_BYTES = 65_536;

function chunks(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / CHUNK_BYTES));
}

function bodyBytes(messages: unknown): number {
  if (!Array.isArray(messages)) return 0;
  return messages.reduce(
    (sum: number, message: { MessageBody?: string; Body?: string }) =>
      sum + Buffer.byteLength(message.MessageBody ?? message.Body ?? ''),
    0,
  );
}

/**
 * Counts every request an SQS client sends, and what SQS bills for it: each 64 KB chunk of
 * a request's payload (the messages sent, or received) is one billed request.
 */
export function countSqs(client: SQSClient): SqsCounts {
  const counts: SqsCounts = {
    requests: new Map(),
    billed: new Map(),
    clear: () => {
      counts.requests.clear();
      counts.billed.clear();
    },
  };
  const add = (map: Map<string, number>, name: string, n: number) =>
    map.set(name, (map.get(name) ?? 0) + n);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName ?? 'unknown').replace(/Command$/, '');
      const input = args.input as { Entries?: unknown; MessageBody?: string };
      const result = await next(args);
      const output = result.output as { Messages?: unknown };
      let payload = 0;
      if (name === 'SendMessageBatch') payload = bodyBytes(input.Entries);
      else if (name === 'SendMessage') payload = Buffer.byteLength(input.MessageBody ?? '');
      else if (name === 'ReceiveMessage') payload = bodyBytes(output.Messages);
      add(counts.requests, name, 1);
      add(counts.billed, name, chunks(payload));
      return result;
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
  listRulesRequests: number;
}

/**
 * An EventBridge client answered here (no emulator exists): `ListRules` returns the rules
 * set with `setRules` (as on a bus named `bench`), and every PutEvents entry is accepted
 * and counted. Nothing is routed on: the dispatch queue is fed by the poller itself.
 */
export function countingBus() {
  const counts: BusCounts = {
    putEventsRequests: 0,
    entries: 0,
    billedChunks: 0,
    entryBytes: 0,
    listRulesRequests: 0,
  };
  let rules: Rule[] = [];
  const client = new EventBridgeClient({
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:9',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'ListRulesCommand') {
        counts.listRulesRequests += 1;
        const output = { $metadata: {}, Rules: rules };
        return { output, response: {} } as Awaited<ReturnType<typeof next>>;
      }
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
        counts.billedChunks += chunks(bytes);
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
  return {
    client,
    counts,
    /** The rules `ListRules` answers with from now on: one per event pattern. */
    setRules(patterns: readonly object[]): void {
      rules = patterns.map((pattern, index) => ({
        Name: `rule-${index}`,
        Arn: `arn:aws:events:us-east-1:000000000000:rule/bench/rule-${index}`,
        EventBusName: 'bench',
        State: 'ENABLED',
        EventPattern: JSON.stringify(pattern),
      }));
    },
    reset(): void {
      Object.assign(counts, {
        putEventsRequests: 0,
        entries: 0,
        billedChunks: 0,
        entryBytes: 0,
        listRulesRequests: 0,
      });
    },
  };
}
