import { readFile } from 'node:fs/promises';
import { CliExit, EXIT_USAGE } from './exit-codes.ts';

/**
 * Reads a `--data` argument: inline JSON, or `@path/to/file.json`.
 * @throws CliExit(2) naming `--data` when the text is not JSON, the file is unreadable
 * (`--data: cannot read req.json (ENOENT)`) or a bare `@` names none.
 */
export async function readJsonArgument(
  value: string | undefined,
  flag = '--data',
): Promise<unknown> {
  if (value === undefined) return {};
  let text = value;
  if (value.startsWith('@')) {
    if (value === '@')
      throw new CliExit(EXIT_USAGE, `${flag}: @ names no file (${flag} @file.json)`);
    try {
      text = await readFile(value.slice(1), 'utf8');
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code ?? 'error';
      throw new CliExit(EXIT_USAGE, `${flag}: cannot read ${value.slice(1)} (${code})`);
    }
  }
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new CliExit(EXIT_USAGE, `${flag}: not valid JSON (${(cause as Error).message})`);
  }
}
