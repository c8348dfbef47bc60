import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { Clock } from '../clock.ts';
import { BridgeError, toValidationError } from '../errors.ts';

/** The file under a data dir that holds the built-in simulator's seed anchor. */
export const SEED_ANCHOR_FILE_NAME = 'simulator-seed.json';

/** The built-in simulator's seed anchor: the "now" its dataset is seeded at, on every start of a data dir. */
export const SeedAnchorSchema = z.object({
  /** Epoch milliseconds: every seeded time is relative to it (see generateDataset's `seededAtMs`). */
  seededAtMs: z.number().int().nonnegative(),
});

/** A parsed {@link SeedAnchorSchema}. */
export type SeedAnchor = z.infer<typeof SeedAnchorSchema>;

/**
 * The seed anchor of `dataDir`: the stored one, or, on a data dir without one, `clock.now()`,
 * stored before it is returned. The file is written beside its final name and renamed over
 * it, so a crash leaves no file or a whole one, never half of one. Call it while holding the
 * data dir's lock: two processes creating it at once would each seed at their own time.
 * @throws BridgeError naming the file when it cannot be read or written, or holds no anchor.
 * @example const { seededAtMs } = await readOrCreateSeedAnchor('.bridge', systemClock);
 */
export async function readOrCreateSeedAnchor(dataDir: string, clock: Clock): Promise<SeedAnchor> {
  const path = join(dataDir, SEED_ANCHOR_FILE_NAME);
  const stored = await readAnchorText(path);
  if (stored !== undefined) return parseAnchor(path, stored);
  const anchor: SeedAnchor = { seededAtMs: clock.now() };
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    await writeFile(temporary, `${JSON.stringify(anchor)}\n`);
    await rename(temporary, path);
  } catch (error) {
    throw new BridgeError(`cannot write the simulator seed anchor ${path}`, { cause: error });
  }
  return anchor;
}

async function readAnchorText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new BridgeError(`cannot read the simulator seed anchor ${path}`, { cause: error });
  }
}

function parseAnchor(path: string, text: string): SeedAnchor {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new BridgeError(
      `the simulator seed anchor ${path} is not JSON (deleting it re-seeds the simulator at the current time)`,
      { cause: error },
    );
  }
  const result = SeedAnchorSchema.safeParse(json);
  if (!result.success)
    throw toValidationError(
      `the simulator seed anchor ${path} (deleting it re-seeds the simulator at the current time)`,
      result.error,
    );
  return result.data;
}
