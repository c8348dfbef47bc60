import type { Server } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import { answerDynaliteRequest, type DynaliteAnswer } from './dynalite-in-process.ts';
import { closeDynaliteServer, startDynaliteServer } from './dynalite-server.ts';
import type {
  DynaliteThreadOptions,
  FromDynaliteThread,
  ToDynaliteThread,
} from './dynalite-thread-messages.ts';

/**
 * The local DynamoDB's own thread (see `startDynaliteThread`, which bundles this module and
 * starts it): runs dynalite here, answers the owner's requests through dynalite's request
 * listener, and serves HTTP on its port as well unless started with `listen: false`.
 */
async function serve(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('dynalite-thread.ts runs as a worker thread only');
  const post = (message: FromDynaliteThread) => port.postMessage(message);
  let server: Server;
  try {
    const options = workerData as DynaliteThreadOptions;
    server = await startDynaliteServer(options.path, options.accessKeyId, {
      listen: options.listen ?? true,
    });
  } catch (error) {
    post({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
    return;
  }
  port.on('message', async (message: ToDynaliteThread) => {
    if (message.kind === 'close') {
      await closeDynaliteServer(server);
      post({ kind: 'closed' });
      port.close();
      return;
    }
    let answer: DynaliteAnswer;
    try {
      answer = await answerDynaliteRequest(server, message);
    } catch (error) {
      // As on the main thread, where the same throw fails the call and nothing else.
      const text = error instanceof Error ? error.message : String(error);
      post({ kind: 'request-failed', id: message.id, message: text });
      return;
    }
    post({ kind: 'answer', id: message.id, ...answer });
  });
  const address = server.address();
  post({ kind: 'ready', port: typeof address === 'object' && address ? address.port : 0 });
}

await serve();
