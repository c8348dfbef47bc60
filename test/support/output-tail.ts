import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

/** Characters an {@link OutputTail} keeps: the end of what a child wrote, for an error message. */
export const OUTPUT_TAIL_CHARS = 4_000;

/**
 * The last {@link OUTPUT_TAIL_CHARS} characters written to the streams it follows (a child's
 * stdout or stderr, one child after another too), for a test to say what a failed child said.
 * @example const said = new OutputTail(); said.follow(child.stderr); ...; throw new Error(await said.final());
 */
export class OutputTail {
  private text = '';
  private readonly closed: Promise<unknown>[] = [];

  /** Keeps what `stream` writes from now on (nothing when there is no stream). */
  follow(stream: Readable | null | undefined): void {
    if (!stream) return;
    const decoder = new StringDecoder('utf8');
    stream.on('data', (chunk: Buffer | string) => {
      const written = typeof chunk === 'string' ? chunk : decoder.write(chunk);
      this.text = (this.text + written).slice(-OUTPUT_TAIL_CHARS);
    });
    this.closed.push(new Promise((resolve) => stream.once('close', resolve)));
  }

  /** What was kept so far. */
  read(): string {
    return this.text;
  }

  /**
   * What was kept once every stream followed has closed, or after `waitMs`: a child's last
   * writes may come after its exit.
   */
  async final(waitMs = 1_000): Promise<string> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(this.closed),
      new Promise((resolve) => {
        timer = setTimeout(resolve, waitMs);
      }),
    ]);
    clearTimeout(timer);
    return this.text;
  }
}
