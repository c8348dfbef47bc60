import { ValidationError } from '../errors.ts';

/** Exit codes of every command (design.md, CLI). */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** Where a command writes; injected so tests can run commands in-process. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** Reads stdin to its end (secrets such as `--access-token-stdin`); default: the process's stdin. */
  readStdin?(): Promise<string>;
}

/** The process's stdout and stderr. */
export const processIo: CliIo = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
};

/** Raised by a command to end with a given exit code and message. */
export class CliExit extends Error {
  override name = 'CliExit';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Exit code for an error a command let escape: 2 for invalid input, 1 for everything else. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof CliExit) return error.code;
  if (error instanceof ValidationError) return EXIT_USAGE;
  return EXIT_FAILURE;
}
