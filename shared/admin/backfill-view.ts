import type { z } from 'zod';
import type { BackfillJobViewSchema, BackfillStreamProgressSchema } from './schemas.ts';

/** Progress of one stream of a backfill. */
export type BackfillStreamProgress = z.infer<typeof BackfillStreamProgressSchema>;
/** A backfill job with its progress. */
export type BackfillJobView = z.infer<typeof BackfillJobViewSchema>;
