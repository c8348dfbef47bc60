import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import {
  LOCAL_KEY_FILE_NAME,
  loadOrCreateKeyFile,
} from '../../shared/connections/local-key-file.ts';
import {
  closePrivateFolders,
  ensureDataDir,
  QUEUE_FOLDER,
  STORE_FOLDER,
} from '../../shared/local/data-dir.ts';
import { startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { LOCAL_TABLE_NAME } from '../../shared/local/runtime.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';
import { DynamoDbWebhookStore } from '../../shared/webhooks/dynamodb-store.ts';
import type { Subscription } from '../../shared/webhooks/subscription.ts';
import { rawPost } from '../support/raw-post.ts';

/*
 * What `change-bridge start` leaves readable to other users and processes of the machine:
 * the data dir holds every subscription's whsec_ signing secret in clear (the dynalite
 * LevelDB) and the store answers on a loopback port without any credential, so neither the
 * data dir nor BRIDGE_ADMIN_TOKEN keeps another local user from the secrets.
 */

const SECRET = 'whsec_c2VjcmV0LXNpZ25pbmcta2V5LW9mLXRoZS1zdWJzY3JpYmVyLTEyMzQ1Njc4';

function subscription(): Subscription {
  return {
    id: 'sub_local_secret',
    url: 'https://hooks.example.com/in',
    events: ['*'],
    enabled: true,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    secret: SECRET,
  } as Subscription;
}

/** A local DynamoDB (in `path` when given) whose table holds one subscription with SECRET. */
async function storeHoldingSecret(options: { path?: string } = {}) {
  const db = await startLocalDynamoDb(options);
  try {
    await createStateTable(db.client, LOCAL_TABLE_NAME);
    const store = new DynamoDbWebhookStore({
      client: db.client,
      tableName: LOCAL_TABLE_NAME,
      clock: systemClock,
    });
    await store.putSubscription(subscription());
    return db;
  } catch (error) {
    await db.close();
    throw error;
  }
}

/**
 * Whether users other than the owner may read `file` under `root`: the file grants them read,
 * and every folder from `root` down to it lets them in.
 */
async function readableByOthers(file: string, root: string): Promise<boolean> {
  if (((await stat(file)).mode & 0o044) === 0) return false;
  for (let dir = dirname(file); dir.startsWith(root); dir = dirname(dir)) {
    if (((await stat(dir)).mode & 0o011) === 0) return false;
    if (dir === root) break;
  }
  return true;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

describe('local secrets are not readable by other local users or processes', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it('creates the data dir readable by its owner only', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'datadir-mode-'));
    dirs.push(parent);
    const dataDir = join(parent, '.bridge');
    await ensureDataDir(dataDir);
    const mode = (await stat(dataDir)).mode & 0o777;
    expect(mode & 0o077, `data dir mode ${mode.toString(8)}`).toBe(0);
  });

  it('closes a data dir an earlier release made open to others, and leaves one holding other things', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'datadir-existing-'));
    dirs.push(parent);
    const modeOf = async (dir: string) => (await stat(dir)).mode & 0o777;
    const ours = join(parent, 'ours');
    await mkdir(join(ours, 'dynamodb'), { recursive: true });
    await chmod(ours, 0o755);
    await ensureDataDir(ours);
    expect((await modeOf(ours)).toString(8)).toBe('700');
    const empty = join(parent, 'empty');
    await mkdir(empty);
    await chmod(empty, 0o755);
    await ensureDataDir(empty);
    expect((await modeOf(empty)).toString(8)).toBe('700');
    const shared = join(parent, 'project');
    await mkdir(shared);
    await writeFile(join(shared, 'package.json'), '{}');
    await chmod(shared, 0o755);
    await ensureDataDir(shared);
    expect((await modeOf(shared)).toString(8)).toBe('755');
  });

  it('keeps no whsec secret in a file other users may read', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'datadir-secret-'));
    dirs.push(dataDir);
    await chmod(dataDir, 0o755); // as mkdir makes it under the usual umask (mkdtemp: 0700)
    await ensureDataDir(dataDir);
    const db = await storeHoldingSecret({ path: join(dataDir, 'dynamodb') });
    await db.close();
    const holding: string[] = [];
    const exposed: string[] = [];
    for (const file of await filesUnder(dataDir)) {
      if (!(await readFile(file, 'latin1')).includes(SECRET)) continue;
      holding.push(file);
      if (await readableByOthers(file, dataDir)) exposed.push(file);
    }
    // The LevelDB log holds the secret in clear (0644, as LevelDB makes it): the data dir,
    // its owner's alone, is what keeps other users out.
    expect(holding.length).toBeGreaterThan(0);
    expect(exposed).toEqual([]);
  });

  it('keeps no whsec secret readable by others in a data dir that holds other things (a project folder)', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'datadir-project-'));
    dirs.push(parent);
    const dataDir = join(parent, 'project');
    await mkdir(dataDir);
    await writeFile(join(dataDir, 'package.json'), '{}');
    await chmod(dataDir, 0o755); // left open: it is not the bridge's alone
    await ensureDataDir(dataDir);
    // As start does once it holds the data dir's lock.
    await closePrivateFolders(dataDir);
    expect(((await stat(dataDir)).mode & 0o777).toString(8)).toBe('755');
    const db = await storeHoldingSecret({ path: join(dataDir, STORE_FOLDER) });
    await db.close();
    const holding: string[] = [];
    const exposed: string[] = [];
    for (const file of await filesUnder(dataDir)) {
      if (!(await readFile(file, 'latin1')).includes(SECRET)) continue;
      holding.push(file);
      if (await readableByOthers(file, dataDir)) exposed.push(file);
    }
    expect(holding.length).toBeGreaterThan(0);
    expect(exposed).toEqual([]);
    // The queue's log files hold the events' payloads (guest data) in clear too.
    for (const folder of [STORE_FOLDER, QUEUE_FOLDER]) {
      const mode = (await stat(join(dataDir, folder))).mode & 0o777;
      expect(mode & 0o077, `${folder} mode ${mode.toString(8)}`).toBe(0);
    }
  });

  it('does not hand subscription secrets to a local caller without any credential', async () => {
    const db = await storeHoldingSecret();
    try {
      // Any local process (another user, a script): no admin token, a made-up signature.
      const answer = await rawPost(
        db.endpoint,
        {
          host: new URL(db.endpoint).host,
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': 'DynamoDB_20120810.Scan',
          authorization:
            'AWS4-HMAC-SHA256 Credential=x/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
          'x-amz-date': '20260101T000000Z',
        },
        JSON.stringify({ TableName: LOCAL_TABLE_NAME }),
      );
      // Refused: not signed with the bridge's own local credential.
      expect(answer.body).not.toContain(SECRET);
    } finally {
      await db.close();
    }
  });

  it('refuses or tightens a connection key file that other users may read', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'keyfile-mode-'));
    dirs.push(dataDir);
    const path = join(dataDir, LOCAL_KEY_FILE_NAME);
    // A data dir copied or restored without its modes (cp -r, unzip, a backup tool).
    await writeFile(path, `${Buffer.alloc(32, 7).toString('base64')}\n`);
    await chmod(path, 0o644);
    let refused = false;
    try {
      await loadOrCreateKeyFile(path);
    } catch {
      refused = true;
    }
    const mode = (await stat(path)).mode & 0o777;
    // Tightened: the key unwraps every stored AccessToken.
    expect(refused || (mode & 0o077) === 0, `key file mode ${mode.toString(8)}`).toBe(true);
  });
});
