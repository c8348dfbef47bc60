/*
 * The messages between the local DynamoDB thread and its owner. Both ends are this folder's
 * code in one process, passed by structured clone: typed here, not parsed.
 */
import type { DynaliteAnswer, DynaliteRequest } from './dynalite-in-process.ts';

/** What the local DynamoDB thread is started with (`workerData`). */
export interface DynaliteThreadOptions {
  /** LevelDB directory; in memory when absent. */
  path?: string;
  /** The owner's local credential, which the thread's HTTP port requires (see LOCAL_CREDENTIALS). */
  accessKeyId?: string;
  /** Whether the thread serves HTTP on a port of 127.0.0.1 too (default true). */
  listen?: boolean;
}

/** A message from the owner to the thread: one request, or the order to close. */
export type ToDynaliteThread =
  | ({ kind: 'request'; id: number } & DynaliteRequest)
  | { kind: 'close' };

/** A message from the thread to its owner. */
export type FromDynaliteThread =
  /** Ready for requests, listening on 127.0.0.1:`port` (0: on no port). */
  | { kind: 'ready'; port: number }
  /** The store could not start. */
  | { kind: 'failed'; message: string }
  /** dynalite's answer, its JSON body as the string dynalite wrote (the owner reads it as one). */
  | ({ kind: 'answer'; id: number } & DynaliteAnswer)
  /** dynalite threw on a request instead of answering (its store not open, say): the call fails. */
  | { kind: 'request-failed'; id: number; message: string }
  /** The server and its store are closed; the thread ends next. */
  | { kind: 'closed' };
