import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { escapingError, sanitizingEscapes } from '../../functions/handler-boundary.ts';
import { BridgeError } from '../../shared/errors.ts';

const SECRET = 'tok-secret-0123456789';

describe('escapingError', () => {
  it('keeps the name, message and stack of an error and no field of its own', () => {
    const original = Object.assign(new BridgeError('store failed', { retryable: true }), {
      request: { AccessToken: SECRET },
    });

    const escaped = escapingError(original);

    expect(escaped).toBeInstanceOf(Error);
    expect(escaped.name).toBe('BridgeError');
    expect(escaped.message).toBe('store failed');
    expect(escaped.stack).toBe(original.stack);
    expect(Object.keys(escaped)).toEqual([]);
    expect(JSON.stringify(escaped)).toBe('{}');
    expect(inspect(escaped)).not.toContain(SECRET);
  });

  it('copies the cause chain with its diagnostic fields only', () => {
    const sdk = Object.assign(new Error('denied'), {
      name: 'AccessDeniedException',
      $metadata: { requestId: 'req-9' },
      $response: { body: SECRET },
    });
    const escaped = escapingError(
      new BridgeError('outer', { cause: new Error('middle', { cause: sdk }) }),
    );

    const middle = escaped.cause as Error;
    const inner = middle.cause as Error & Record<string, unknown>;
    expect(middle.message).toBe('middle');
    expect(inner.name).toBe('AccessDeniedException');
    expect(inner.$metadata).toEqual({ requestId: 'req-9' });
    expect(inner.$response).toBeUndefined();
    expect(inspect(escaped, { depth: 10 })).not.toContain(SECRET);
  });

  it('names a thrown value that is not an Error, or a cause that is not one, without its contents', () => {
    const fromObject = escapingError({ accessToken: SECRET });
    expect(fromObject).toBeInstanceOf(Error);
    expect(fromObject.message).toBe('a thrown Object, not an Error');
    expect(escapingError('plain text').message).toBe('plain text');
    const withCause = escapingError(new Error('outer', { cause: { token: SECRET } }));
    expect(withCause.cause).toBe('a thrown Object, not an Error');
  });
});

describe('sanitizingEscapes', () => {
  it('answers what the handler answers, partial batch failures included', async () => {
    const answer = { batchItemFailures: [{ itemIdentifier: 'm-1' }] };
    const handler = sanitizingEscapes(async (id: string) => ({ ...answer, id }));
    await expect(handler('x')).resolves.toEqual({ ...answer, id: 'x' });
  });

  it('still fails the invocation, with the sanitized error', async () => {
    const handler = sanitizingEscapes(async () => {
      throw Object.assign(new Error('boom'), { SecretString: SECRET });
    });
    const thrown = await handler().catch((error: unknown) => error as Error);
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown.message).toBe('boom');
    expect(JSON.stringify(thrown)).not.toContain(SECRET);
  });
});
