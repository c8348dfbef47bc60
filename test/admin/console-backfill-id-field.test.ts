import { describe, expect, it } from 'vitest';
import { BACKFILL_ID_PATTERN } from '../../shared/admin/backfill-jobs.ts';
import {
  BACKFILL_ID_TAKES,
  BACKFILL_ID_PATTERN as CONSOLE_BACKFILL_ID_PATTERN,
  readBackfillIdField,
} from '../../shared/admin/console/backfill-id-field.js';
import { checkIdShape } from '../../shared/cli/admin/id-shapes.ts';
import { CliExit } from '../../shared/cli/exit-codes.ts';

const ID = 'bf_0123456789ABCDEFGHJKMNPQRS';

describe("the console's backfill Job id field", () => {
  it("mirrors the API's backfill id pattern and the CLI's wording", () => {
    expect(CONSOLE_BACKFILL_ID_PATTERN.source).toBe(BACKFILL_ID_PATTERN.source);
    expect(CONSOLE_BACKFILL_ID_PATTERN.flags).toBe(BACKFILL_ID_PATTERN.flags);
    let refusal: unknown;
    try {
      checkIdShape('backfill', 'job 7', 'id');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(CliExit);
    expect((refusal as Error).message).toContain(BACKFILL_ID_TAKES);
  });

  it('takes a backfill id, trimmed, and blank text as nothing to show', () => {
    expect(readBackfillIdField(` ${ID} `)).toEqual({ id: ID });
    expect(readBackfillIdField('  ')).toEqual({});
    expect(readBackfillIdField(null)).toEqual({});
  });

  it('refuses a text that is no backfill id with the CLI wording, instead of asking the API', () => {
    // Before, the console sent any text to GET /backfill/{id} and showed the API's 404.
    for (const text of ['bf_old', 'job 7', `${ID}X`, ID.toLowerCase(), `sub_${ID.slice(3)}`]) {
      expect(readBackfillIdField(text), text).toEqual({ problem: `Job id: ${BACKFILL_ID_TAKES}` });
    }
    expect(BACKFILL_ID_TAKES).toBe(
      'must be a backfill id: bf_ and 26 characters, as backfill and backfill list print it',
    );
  });
});
