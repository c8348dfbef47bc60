import { randomUUID } from 'node:crypto';
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import * as dynamodb from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  type TranslateConfig,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { DocumentClient } from '../state/document-client.ts';
import { type AnswerDynalite, LOCAL_AUTHORIZATION } from './dynalite-in-process.ts';
import { base64Of } from './dynalite-item-json.ts';
import type { AnswerDynaliteObject } from './dynalite-objects.ts';

type Item = Record<string, unknown>;
type StoredItem = Record<string, AttributeValue>;
type Fields = Record<string, unknown>;

/** How one operation's document-level input and output map to DynamoDB's attribute values. */
interface Operation {
  target: string;
  input(input: Fields, toStored: (item: Item) => StoredItem): Fields;
  output(output: Fields, fromStored: (item: StoredItem) => Item): Fields;
}

/** Applies `convert` to the fields of `record` named in `names` that are present. */
function mapFields<From, To>(
  record: Fields,
  names: readonly string[],
  convert: (value: From) => To,
): Fields {
  const mapped: Fields = { ...record };
  for (const name of names)
    if (record[name] !== undefined && record[name] !== null)
      mapped[name] = convert(record[name] as From);
  return mapped;
}

/** Applies `convert` to each value of a map (by table name, in the batch operations). */
function mapValues<From, To>(record: unknown, convert: (value: From) => To): Fields | undefined {
  if (record === undefined || record === null) return undefined;
  return Object.fromEntries(
    Object.entries(record as Record<string, From>).map(([key, value]) => [key, convert(value)]),
  );
}

/** Get, Put, Update, Delete, Query and Scan: items and keys at the top level. */
const itemOperation = (target: string): Operation => ({
  target,
  input: (input, toStored) =>
    mapFields(input, ['Key', 'Item', 'ExclusiveStartKey', 'ExpressionAttributeValues'], toStored),
  output: (output, fromStored) => {
    const mapped = mapFields(output, ['Item', 'Attributes', 'LastEvaluatedKey'], fromStored);
    if (Array.isArray(output.Items)) mapped.Items = (output.Items as StoredItem[]).map(fromStored);
    return mapped;
  },
});

type WriteRequest = { PutRequest?: { Item: unknown }; DeleteRequest?: { Key: unknown } };

/** One BatchWriteItem request with its item or key converted. */
function mapWriteRequest(request: WriteRequest, convert: (item: never) => unknown): WriteRequest {
  if (request.PutRequest)
    return { PutRequest: { Item: convert(request.PutRequest.Item as never) } };
  if (request.DeleteRequest)
    return { DeleteRequest: { Key: convert(request.DeleteRequest.Key as never) } };
  return request;
}

/** Keys of a BatchGetItem table entry (`{ Keys, ConsistentRead, … }`) converted. */
function mapKeysAndAttributes(entry: Fields, convert: (item: never) => unknown): Fields {
  return { ...entry, Keys: (entry.Keys as never[]).map(convert) };
}

const batchGet: Operation = {
  target: 'BatchGetItem',
  input: (input, toStored) => ({
    ...input,
    RequestItems: mapValues(input.RequestItems, (entry: Fields) =>
      mapKeysAndAttributes(entry, toStored),
    ),
  }),
  output: (output, fromStored) => ({
    ...output,
    Responses: mapValues(output.Responses, (items: StoredItem[]) => items.map(fromStored)),
    UnprocessedKeys: mapValues(output.UnprocessedKeys, (entry: Fields) =>
      mapKeysAndAttributes(entry, fromStored),
    ),
  }),
};

const batchWrite: Operation = {
  target: 'BatchWriteItem',
  input: (input, toStored) => ({
    ...input,
    RequestItems: mapValues(input.RequestItems, (requests: WriteRequest[]) =>
      requests.map((request) => mapWriteRequest(request, toStored)),
    ),
  }),
  output: (output, fromStored) => ({
    ...output,
    UnprocessedItems: mapValues(output.UnprocessedItems, (requests: WriteRequest[]) =>
      requests.map((request) => mapWriteRequest(request, fromStored)),
    ),
  }),
};

/** The commands answered directly; any other goes through the SDK. */
const OPERATIONS = new Map<unknown, Operation>([
  [GetCommand, itemOperation('GetItem')],
  [PutCommand, itemOperation('PutItem')],
  [UpdateCommand, itemOperation('UpdateItem')],
  [DeleteCommand, itemOperation('DeleteItem')],
  [QueryCommand, itemOperation('Query')],
  [ScanCommand, itemOperation('Scan')],
  [BatchGetCommand, batchGet],
  [BatchWriteCommand, batchWrite],
]);

/**
 * Replaces, in place, every `B` and each member of a `BS` of `attributes` (attribute values as
 * DynamoDB's JSON holds them) with `convert` of it, at any depth of `M` and `L`. Returns
 * `attributes`.
 */
function convertBinaries(attributes: StoredItem, convert: (value: unknown) => unknown): StoredItem {
  for (const key in attributes) convertBinary(attributes[key], convert);
  return attributes;
}

function convertBinary(value: unknown, convert: (value: unknown) => unknown): void {
  if (typeof value !== 'object' || value === null) return;
  const attribute = value as { B?: unknown; BS?: unknown; M?: unknown; L?: unknown };
  if (attribute.B !== undefined) attribute.B = convert(attribute.B);
  else if (Array.isArray(attribute.BS)) attribute.BS = attribute.BS.map(convert);
  else if (Array.isArray(attribute.L))
    for (const member of attribute.L) convertBinary(member, convert);
  else if (typeof attribute.M === 'object' && attribute.M !== null)
    convertBinaries(attribute.M as StoredItem, convert);
}

/**
 * Binary attribute values travel as base64 in DynamoDB's JSON: the freshly marshalled
 * `attributes` get theirs as base64 text, so a request is written by one JSON.stringify without
 * a replacer (a replacer is called for every key and value of the request, records' text
 * included).
 */
const binariesAsBase64 = (attributes: StoredItem) =>
  convertBinaries(attributes, (value) => (value instanceof Uint8Array ? base64Of(value) : value));

/** The reverse of {@link binariesAsBase64}: stored base64 text becomes bytes, as the SDK returns them. */
const binariesAsBytes = (attributes: StoredItem) =>
  convertBinaries(attributes, (value) => (typeof value === 'string' ? bytesOf(value) : value));

function bytesOf(base64: string): Uint8Array {
  const buffer = Buffer.from(base64, 'base64');
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/** The SDK's error for a dynalite error answer: its modelled class when there is one. */
export function serviceErrorOf(
  statusCode: number,
  body: { __type?: string; message?: string; Message?: string },
  requestId: string | undefined,
): Error {
  const name = (body.__type ?? 'UnknownError').split('#').pop()!;
  const message = body.message ?? body.Message ?? name;
  const $metadata = { httpStatusCode: statusCode, requestId };
  const modelled = (dynamodb as Record<string, unknown>)[name];
  if (
    typeof modelled === 'function' &&
    modelled.prototype instanceof dynamodb.DynamoDBServiceException
  ) {
    const Modelled = modelled as new (options: { message: string; $metadata: object }) => Error;
    return new Modelled({ message, $metadata });
  }
  return new dynamodb.DynamoDBServiceException({
    name,
    message,
    $fault: statusCode >= 500 ? 'server' : 'client',
    $metadata,
  });
}

/** Options of {@link directDocumentClient}. */
export interface DirectDocumentClientOptions {
  answer: AnswerDynalite;
  /**
   * The same store answering on objects (dynalite in this thread): requests and answers are
   * not written as JSON and parsed back. `answer` serves when absent (dynalite in a thread).
   */
  answerObject?: AnswerDynaliteObject;
  /** The SDK client of the same store, for commands not answered directly. */
  fallback: DynamoDBClient;
  translateConfig?: TranslateConfig;
}

/**
 * A document client of the local dynalite that skips the AWS SDK: each command's items are
 * marshalled as lib-dynamodb would (util-dynamodb, the same options), handed to dynalite as the
 * objects DynamoDB's JSON parses to (`answerObject`: dynalite in this thread) or sent to its
 * request listener as that JSON (`answer`: dynalite in a thread of its own), and its answer
 * unmarshalled; dynalite's error answers
 * become the SDK's exception classes (`ConditionalCheckFailedException`, …). The same
 * validation, conditions and storage as through the SDK, minus the SDK's middleware, which
 * cost more CPU per call than dynalite's own work. Commands other than Get, Put, Update,
 * Delete, Query, Scan, BatchGet and BatchWrite go through the SDK's document client.
 */
export function directDocumentClient(options: DirectDocumentClientOptions): DocumentClient {
  const { marshallOptions, unmarshallOptions } = options.translateConfig ?? {};
  // Whole records, not lib-dynamodb's one value at a time: their attributes, not one `M`.
  const recordOptions = { ...marshallOptions, convertTopLevelContainer: false } as const;
  const toStored = (item: Item): StoredItem => binariesAsBase64(marshall(item, recordOptions));
  const fromStored = (item: StoredItem) => unmarshall(binariesAsBytes(item), unmarshallOptions);
  let sdk: DocumentClient | undefined;
  const send = async (command: { input: object }): Promise<unknown> => {
    const operation = OPERATIONS.get(command.constructor);
    if (!operation) {
      sdk ??= DynamoDBDocumentClient.from(options.fallback, options.translateConfig);
      return sdk.send(command as never);
    }
    const input = operation.input(command.input as Fields, toStored);
    const answer = await answerOf(operation.target, input);
    if (answer.statusCode !== 200)
      throw serviceErrorOf(answer.statusCode, answer.body, answer.requestId);
    const output = operation.output(answer.body as Fields, fromStored);
    return {
      ...output,
      $metadata: { httpStatusCode: 200, requestId: answer.requestId, attempts: 1 },
    };
  };
  /** dynalite's answer to `input` as objects, however the store is reached. */
  const answerOf = async (target: string, input: Fields) => {
    if (options.answerObject) {
      return { ...(await options.answerObject(target, input)), requestId: randomUUID() };
    }
    const answer = await options.answer({
      method: 'POST',
      path: '/',
      headers: {
        ...LOCAL_AUTHORIZATION,
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': `DynamoDB_20120810.${target}`,
      },
      body: Buffer.from(JSON.stringify(input), 'utf8'),
    });
    const body = JSON.parse(answer.body) as Record<string, unknown>;
    return { statusCode: answer.statusCode, body, requestId: answer.headers['x-amzn-requestid'] };
  };
  // One function serves every overload of the SDK's `send` (commands in, outputs out).
  return { send } as unknown as DocumentClient;
}
