import { readFile } from 'node:fs/promises';
import { ValidationError } from '../errors.ts';

/**
 * Reads a `--data` argument: inline JSON, or `@path/to/file.json`.
 * @throws ValidationError naming `--data` when the text is not JSON or the file is unreadable.
 */
export async function readJsonArgument(
  value: string | undefined,
  flag = '--data',
): Promise<unknown> {
  if (value === undefined) return {};
  let text = value;
  if (value.startsWith('@')) {
    try {
      text = await readFile(value.slice(1), 'utf8');
    } catch (cause) {
      throw new ValidationError(flag, [{ path: flag, message: `cannot read ${value.slice(1)}` }], {
        cause,
      });
    }
  }
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new ValidationError(
      flag,
      [{ path: flag, message: `not valid JSON (${(cause as Error).message})` }],
      {
        cause,
      },
    );
  }
}
