import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import {
  addConnection,
  getConnectionView,
  listConnectionViews,
  setConnectionEnabled,
} from '../../shared/connections/connection-admin.ts';
import { environmentConnectionView } from '../../shared/connections/connection-streams.ts';
import { LOCAL_KEY_FILE_NAME } from '../../shared/connections/local-key-file.ts';
import type { ConnectorClient } from '../../shared/connector/connector-client.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { openLocalConnections } from '../../shared/local/local-connections.ts';
import { pollSettingsFromEnv } from '../../shared/polling/poll-settings.ts';
import { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';

/*
 * `start` with a data dir whose connections.key no longer opens the stored AccessTokens (the
 * key file deleted, so a new one was made, or one from another data dir copied in): each
 * connection is left out with an error saying so, once, and `start` goes on.
 */

const TABLE = 'key-file-mismatch';
const T0 = Date.UTC(2026, 10, 1);
const TOKEN = 'hotel-access-token-6a1f0c2d9e';

let dynamo: LocalDynamoDb;
let dataDir: string;
beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
  await createStateTable(dynamo.client, TABLE);
  dataDir = await mkdtemp(join(tmpdir(), 'key-file-mismatch-'));
});
afterAll(async () => {
  await dynamo?.close();
  await rm(dataDir, { recursive: true, force: true });
});

function open(messages: string[]) {
  const clock = new ManualClock(T0);
  const settings = pollSettingsFromEnv({ POLL_ENTITIES: 'customer' }, T0);
  const deployment = {
    baseUrl: 'http://127.0.0.1:9',
    clientToken: 'deployment-client-token',
    accessToken: 'environment-access-token',
    client: 'test',
  };
  return openLocalConnections({
    dataDir,
    dynamo: dynamo.client,
    tableName: TABLE,
    state: new DynamoDbStateStore({ client: dynamo.client, tableName: TABLE, clock }),
    settings,
    tracked: {},
    deployment,
    fixed: {
      id: 'local',
      definitions: [],
      client: { close: async () => undefined } as unknown as ConnectorClient,
      signal: new AbortController().signal,
    },
    fixedView: environmentConnectionView('local', settings, T0),
    clientDeps: { clock },
    clock,
    onError: (message) => messages.push(message),
    onWarning: (message) => messages.push(message),
    onInfo: () => undefined,
  });
}

describe('stored connections whose key file was replaced', () => {
  it('are each reported once, naming the key file, and not polled; the others go on', async () => {
    const first = await open([]);
    for (const id of ['hotel-1', 'hotel-2'])
      await addConnection({ id, accessToken: TOKEN, entities: ['customer'] }, first.admin);
    expect(first.registry.connections().map((c) => c.id)).toEqual(['local', 'hotel-1', 'hotel-2']);
    await first.close();

    // Another 32-byte key where the one that sealed the tokens was.
    await writeFile(
      join(dataDir, LOCAL_KEY_FILE_NAME),
      `${Buffer.alloc(32, 1).toString('base64')}\n`,
    );
    const messages: string[] = [];
    const second = await open(messages);
    try {
      expect(second.registry.connections().map((c) => c.id)).toEqual(['local']);
      expect(messages).toHaveLength(2);
      for (const [index, id] of ['hotel-1', 'hotel-2'].entries()) {
        expect(messages[index]).toContain(`connection ${id}`);
        expect(messages[index]).toContain(LOCAL_KEY_FILE_NAME);
        expect(messages[index]).not.toContain(TOKEN);
      }
      // Listed as enabled yet not polled, saying why.
      const views = await listConnectionViews(second.admin);
      expect(views.map((v) => [v.id, v.enabled, v.error !== undefined])).toEqual([
        ['local', true, false],
        ['hotel-1', true, true],
        ['hotel-2', true, true],
      ]);
      expect(views[1]!.error).toContain(LOCAL_KEY_FILE_NAME);
      expect((await getConnectionView('hotel-2', second.admin)).error).toContain('does not open');
      // The periodic re-read finds them as they were: nothing new to say.
      await second.registry.refresh();
      await second.registry.refresh();
      expect(messages).toHaveLength(2);
      // Disabled, it is not polled by choice: no error; enabled again, it is tried and told again.
      expect((await setConnectionEnabled('hotel-2', false, second.admin)).error).toBeUndefined();
      const enabled = await setConnectionEnabled('hotel-2', true, second.admin);
      expect(enabled.error).toContain('does not open');
      expect(messages).toHaveLength(3);
    } finally {
      await second.close();
    }
  });
});
