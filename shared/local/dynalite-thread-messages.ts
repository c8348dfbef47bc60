import { z } from 'zod';

/** What the local DynamoDB thread is started with (`workerData`). */
export const DynaliteThreadOptionsSchema = z.object({
  /** LevelDB directory; in memory when absent. */
  path: z.string().optional(),
});
export type DynaliteThreadOptions = z.infer<typeof DynaliteThreadOptionsSchema>;

const HeadersSchema = z.record(z.string(), z.string());

/** A message from the owner to the thread: one request, or the order to close. */
export const ToDynaliteThreadSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('request'),
    id: z.number().int(),
    method: z.string(),
    path: z.string(),
    headers: HeadersSchema,
    body: z.instanceof(Uint8Array),
  }),
  z.object({ kind: z.literal('close') }),
]);
export type ToDynaliteThread = z.infer<typeof ToDynaliteThreadSchema>;

/** A message from the thread to its owner. */
export const FromDynaliteThreadSchema = z.discriminatedUnion('kind', [
  /** Listening on 127.0.0.1:`port`, ready for requests. */
  z.object({ kind: z.literal('ready'), port: z.number().int() }),
  /** The store could not start (its folder locked by another process, say). */
  z.object({ kind: z.literal('failed'), message: z.string() }),
  z.object({
    kind: z.literal('answer'),
    id: z.number().int(),
    statusCode: z.number().int(),
    headers: HeadersSchema,
    body: z.instanceof(Uint8Array),
  }),
  /** The server and its store are closed; the thread ends next. */
  z.object({ kind: z.literal('closed') }),
]);
export type FromDynaliteThread = z.infer<typeof FromDynaliteThreadSchema>;
