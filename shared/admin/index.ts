/**
 * The admin HTTP API: a framework-free router over the webhook service and the state store,
 * its node:http server (`change-bridge start`) and the pieces the API Gateway handler and
 * the local runtime compose. Import from here in composition roots.
 */
export type { AdminDeps } from './admin-deps.ts';
export {
  backfillProgress,
  readStream,
  startBackfill,
  startStreamBackfill,
} from './backfill.ts';
export {
  type BackfillJob,
  type BackfillJobStore,
  MemoryBackfillJobStore,
} from './backfill-jobs.ts';
export { BackfillSourcesCache, progressRefreshMs } from './backfill-sources-cache.ts';
export {
  BACKFILL_JOB_RETENTION_MS,
  DynamoDbBackfillJobStore,
} from './dynamodb-backfill-job-store.ts';
export {
  ADMIN_BODY_MAX_BYTES,
  type AdminServer,
  type AdminServerOptions,
  parseJsonBody,
  startAdminServer,
} from './node-server.ts';
export { buildOpenApiDocument } from './openapi.ts';
export type { AdminRequest, AdminResponse } from './route.ts';
export { handleAdminRequest } from './router.ts';
export { ADMIN_ROUTES, openApiDocument } from './routes.ts';
export { stateSnapshotSource } from './snapshot-source.ts';
export { listStreamViews, type StreamView, toStreamView } from './streams-view.ts';
