import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { STORE_FOLDER } from '../../shared/local/data-dir.ts';
import { startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { jsonReporter } from '../../shared/local/reporter.ts';
import { LOCAL_TABLE_NAME, startBridge } from '../../shared/local/runtime.ts';
import { connectorEnvOf } from '../../shared/simulator/connector-env.ts';
import { startSimulator } from '../../shared/simulator/simulator.ts';
import { documentClientOf } from '../../shared/state/document-client.ts';
import { startTestReceiver } from '../e2e/webhook-receiver.ts';
import { testLocalConfig } from '../support/local-config.ts';
import { waitFor } from '../support/wait-for.ts';

describe("change-bridge start's event items", () => {
  it('hold the body as text in an attribute of its own, the event the receiver verified', async () => {
    const sim = await startSimulator({ seed: 31, size: 'small', rateLimit: false });
    const receiver = await startTestReceiver();
    const dataDir = await mkdtemp(join(tmpdir(), 'cb-event-bodies-'));
    try {
      const bridge = await startBridge(testLocalConfig(dataDir, 500), {
        env: {
          ...connectorEnvOf(sim),
          POLL_ENTITIES: 'customer',
          POLL_HISTORY_START: '400d',
          INITIAL_SYNC: 'emit',
        },
        reporter: jsonReporter({ write: () => undefined, now: () => Date.now() }),
      });
      let verified: { webhookId: string; subject: string };
      try {
        const added = await fetch(`${bridge.adminUrl}/subscriptions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ url: receiver.url }),
        });
        receiver.setSecret(((await added.json()) as { secret: string }).secret);
        await waitFor(() => receiver.received.length > 0, 20_000, 'a verified delivery', 50);
        verified = receiver.received[0]!;
      } finally {
        await bridge.stop();
      }
      // The store the bridge left on disk, opened again.
      const store = await startLocalDynamoDb({ path: join(dataDir, STORE_FOLDER), listen: false });
      try {
        const documents = documentClientOf(store.client);
        const { Item: item } = await documents.send(
          new GetCommand({
            TableName: LOCAL_TABLE_NAME,
            Key: { pk: `EVENT#${verified.webhookId}`, sk: 'EVENT' },
          }),
        );
        expect(item?.body).toBeUndefined();
        expect(typeof item?.text).toBe('string');
        const event = JSON.parse(String(item?.text)) as { id: string; subject: string };
        expect([event.id, event.subject]).toEqual([verified.webhookId, verified.subject]);
      } finally {
        await store.close();
      }
    } finally {
      await receiver.close();
      await sim.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
