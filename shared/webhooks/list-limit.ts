/**
 * Longest list the admin API returns. Its own module: the CLI's request schemas
 * (shared/admin/schemas.ts) use it without loading the delivery service and its SDK clients.
 */
export const LIST_LIMIT_MAX = 1000;
