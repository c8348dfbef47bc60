import { readFile } from 'node:fs/promises';
import { CliExit, EXIT_USAGE } from '../exit-codes.ts';

/** Where a command reads a secret from: stdin or a file, never a flag's value (it would show in `ps` and shell history). */
export interface SecretSource {
  stdin?: boolean;
  file?: string;
  /** The flag names, for messages. */
  flags: { stdin: string; file: string };
}

/**
 * Reads one secret: the whole of stdin or of the file, without its trailing line break.
 * @throws CliExit(2) naming the flags when neither or both are given, or the value is empty;
 * the secret itself never appears in a message.
 */
export async function readSecret(
  source: SecretSource,
  readStdin: () => Promise<string>,
): Promise<string> {
  const { stdin, file, flags } = source;
  if (Boolean(stdin) === (file !== undefined)) {
    throw new CliExit(EXIT_USAGE, `give exactly one of ${flags.stdin} and ${flags.file} PATH`);
  }
  let text: string;
  if (file !== undefined) {
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new CliExit(
        EXIT_USAGE,
        // The path is not repeated: a secret typed where its path goes would be.
        `${flags.file}: cannot read the file it names (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
  } else {
    text = await readStdin();
  }
  const secret = text.replace(/\r?\n$/, '');
  if (secret.trim() === '') {
    throw new CliExit(
      EXIT_USAGE,
      `${file !== undefined ? flags.file : flags.stdin}: the token is empty`,
    );
  }
  return secret;
}

/** Reads the process's stdin to its end. */
export async function readProcessStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}
