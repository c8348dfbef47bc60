import { mkdir } from 'node:fs/promises';
import { ValidationError } from '../errors.ts';

/** What a failed `mkdir` of the data dir says about the path the user gave. */
const UNUSABLE_PATH: Readonly<Record<string, string>> = {
  EEXIST: 'is a file, not a directory',
  ENOTDIR: 'has a file where a parent directory should be',
  EACCES: 'cannot be created or written (permission denied)',
  EPERM: 'cannot be created or written (operation not permitted)',
  EROFS: 'is on a read-only file system',
};

/**
 * Creates the data dir (and its parents) if missing. A path that cannot be a directory is bad
 * input, named by its flag and variable (exit 2), not a raw `EEXIST` from `mkdir`.
 * @example await ensureDataDir('.bridge')
 */
export async function ensureDataDir(dataDir: string): Promise<void> {
  try {
    await mkdir(dataDir, { recursive: true });
  } catch (error) {
    const reason = UNUSABLE_PATH[(error as NodeJS.ErrnoException).code ?? ''];
    if (reason === undefined) throw error;
    throw new ValidationError(
      'the data dir',
      [{ path: '--data-dir (BRIDGE_DATA_DIR)', message: `${dataDir} ${reason}` }],
      { cause: error },
    );
  }
}
