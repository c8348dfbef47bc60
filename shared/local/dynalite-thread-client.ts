import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { buildSync } from 'esbuild';
import {
  type AnswerDynalite,
  closedStoreError,
  type DynaliteAnswer,
} from './dynalite-in-process.ts';
import type {
  DynaliteThreadOptions,
  FromDynaliteThread,
  ToDynaliteThread,
} from './dynalite-thread-messages.ts';
import { LOCAL_CREDENTIALS, UNSERVED_DYNAMODB_ENDPOINT } from './local-credentials.ts';

/**
 * The thread's young generation, in MB. V8 grows it up to 16 MB a semi-space for a busy
 * isolate; dynalite's garbage is short-lived requests, and a small one kept the whole bridge
 * about 45 MB lower in the first minute of a 100,000-event backfill, at a like rate.
 */
const THREAD_YOUNG_GENERATION_MB = 4;

const THREAD_MODULE = new URL('./dynalite-thread.ts', import.meta.url);

let threadCode: string | undefined;

/**
 * The thread's module as one plain JavaScript module, bundled once per process. A worker does
 * not inherit the TypeScript loader (tsx) of the thread that starts it, and registering it there
 * too would cost another loader thread and compiler process. Packages are loaded by the bundle
 * at run time from where the sources are (`import.meta.url` is theirs), as dynalite must be:
 * its LevelDB binding cannot be bundled.
 */
function bundledThreadModule(): string {
  // Synchronous: esbuild runs once as a process that exits, where its asynchronous API would
  // keep a compiler service process (about 15 MB) beside the bridge for good. About 0.1 s.
  threadCode ??= buildSync({
    entryPoints: [fileURLToPath(THREAD_MODULE)],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    define: { 'import.meta.url': JSON.stringify(THREAD_MODULE.href) },
    logLevel: 'silent',
  }).outputFiles[0]!.text;
  return threadCode;
}

/** dynalite running in a worker thread of this process. */
export interface DynaliteThread {
  /**
   * `http://127.0.0.1:<port>`: the thread serves HTTP too (tests, tools); with `listen: false`,
   * {@link UNSERVED_DYNAMODB_ENDPOINT}.
   */
  endpoint: string;
  /** Passes one request to the thread as a message (no socket) and returns its answer. */
  answer: AnswerDynalite;
  /** Closes the store (flushing LevelDB) and ends the thread. Idempotent. */
  close(): Promise<void>;
}

interface Pending {
  resolve(answer: DynaliteAnswer): void;
  reject(error: Error): void;
}

/**
 * Starts dynalite in a worker thread of this process: its validation, conditions and LevelDB
 * work (a third of the local runtime's CPU under load) run beside the main thread instead of
 * on it, and the SDK client reaches it by message, without a socket. The same store as
 * `startLocalDynamoDb`'s in-process one, on another core. Rejects when the store cannot open
 * (its LevelDB folder locked by another process, say).
 * @example const thread = await startDynaliteThread({ path: '.bridge/dynamodb' }); ...; await thread.close();
 */
export async function startDynaliteThread(
  options: DynaliteThreadOptions = {},
): Promise<DynaliteThread> {
  const code = bundledThreadModule();
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`), {
    // The thread draws no credential of its own: its port answers this thread's clients.
    workerData: { accessKeyId: LOCAL_CREDENTIALS.accessKeyId, ...options },
    // Not the starting thread's loader flags (`--import tsx` under tsx or vitest): the bundle is
    // plain JavaScript.
    execArgv: [],
    resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB },
  });
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let open = false;
  let closed: Promise<void> | undefined;
  const failAll = (error: Error) => {
    open = false;
    for (const waiting of pending.values()) waiting.reject(error);
    pending.clear();
  };
  const send = (message: ToDynaliteThread, transfer: ArrayBuffer[] = []) =>
    worker.postMessage(message, transfer);

  const port = await new Promise<number>((resolve, reject) => {
    const onStart = (message: FromDynaliteThread) => {
      if (message.kind === 'ready') resolve(message.port);
      else if (message.kind === 'failed') reject(new Error(message.message));
    };
    worker.once('message', onStart);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the local DynamoDB thread exited (${code})`)));
  });
  worker.removeAllListeners('error');
  worker.removeAllListeners('exit');
  open = true;
  worker.on('message', answer);
  worker.on('error', (error) => {
    failAll(error);
    // A store that fails on its own (not closed) fails the process, as dynalite throwing on the
    // main thread would: a bridge whose every store call fails would only look alive.
    if (!closed)
      process.nextTick(() => {
        throw error;
      });
  });
  worker.on('exit', () => failAll(closedStoreError()));

  function answer(message: FromDynaliteThread): void {
    if (message.kind === 'request-failed') {
      pending.get(message.id)?.reject(new Error(`local DynamoDB: ${message.message}`));
      pending.delete(message.id);
      return;
    }
    if (message.kind !== 'answer') return;
    const waiting = pending.get(message.id);
    pending.delete(message.id);
    waiting?.resolve({
      statusCode: message.statusCode,
      headers: message.headers,
      body: message.body,
    });
  }

  const answerInThread: AnswerDynalite = (request) => {
    if (!open) return Promise.reject(closedStoreError());
    const id = nextId++;
    // A copy the thread can own: the SDK may send its body again on a retry.
    const body = request.body.slice();
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      send({ kind: 'request', id, ...request, body }, [body.buffer]);
    });
  };

  return {
    endpoint: port === 0 ? UNSERVED_DYNAMODB_ENDPOINT : `http://127.0.0.1:${port}`,
    answer: answerInThread,
    close: () => {
      closed ??= (async () => {
        open = false;
        const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
        send({ kind: 'close' });
        await exited;
      })();
      return closed;
    },
  };
}
