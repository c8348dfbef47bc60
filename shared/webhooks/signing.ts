import { createHmac, randomBytes } from 'node:crypto';
import { BridgeError } from '../errors.ts';
import type { RetiringSecret } from './subscription.ts';

/** Prefix of every signing secret (Standard Webhooks). */
export const SECRET_PREFIX = 'whsec_';
/** Random bytes in a new secret: 32, as the issue asks (Standard Webhooks allows 24–64). */
export const SECRET_BYTES = 32;

/** Source of cryptographically strong random bytes, injected so tests can pin secrets. */
export type RandomBytes = (size: number) => Uint8Array;

/** `node:crypto` random bytes, for composition roots. */
export const systemRandomBytes: RandomBytes = (size) => randomBytes(size);

/**
 * A new signing secret: `whsec_` + base64 of {@link SECRET_BYTES} random bytes.
 * @example generateSecret(systemRandomBytes) // 'whsec_k3J…'
 */
export function generateSecret(random: RandomBytes): string {
  return SECRET_PREFIX + Buffer.from(random(SECRET_BYTES)).toString('base64');
}

function secretKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) {
    throw new BridgeError('signing secret must start with whsec_');
  }
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

/** What one webhook request is signed over. */
export interface SignInput {
  /** `webhook-id`: the event id, stable across retries. */
  id: string;
  /** `webhook-timestamp`: the attempt time in unix seconds. */
  timestampSeconds: number;
  /** The exact body bytes sent. */
  body: string;
  /** Secrets in use; while a secret rotates, the new one and the old one. */
  secrets: readonly string[];
}

/**
 * The `webhook-signature` header value per the Standard Webhooks specification
 * ("Signature scheme"): `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` under each
 * base64-decoded `whsec_` secret, space-separated, so a receiver holding either secret
 * verifies during a rotation. Throws {@link BridgeError} on a malformed secret.
 * @example signatureHeader({ id: 'evt_1', timestampSeconds: 1767225600, body: '{}', secrets: [secret] })
 */
export function signatureHeader(input: SignInput): string {
  const timestamp = String(input.timestampSeconds);
  return input.secrets
    .map((secret) => {
      // The content `id.timestamp.body`, given in its parts: the body is not copied into one
      // string with the rest for each request.
      const hmac = createHmac('sha256', secretKey(secret));
      hmac.update(input.id).update('.').update(timestamp).update('.').update(input.body);
      return `v1,${hmac.digest('base64')}`;
    })
    .join(' ');
}

/** Where a subscription keeps its secrets (the current one and those retiring). */
export interface SubscriptionSecrets {
  secret: string;
  previousSecrets?: readonly RetiringSecret[];
  /** The single earlier secret of subscriptions stored before previousSecrets. */
  previousSecret?: string;
  previousSecretExpiresAt?: number;
}

/** Earlier secrets still within their grace period at `nowMs`, newest first. */
export function retiringSecrets(
  subscription: SubscriptionSecrets,
  nowMs: number,
): RetiringSecret[] {
  const earlier = [...(subscription.previousSecrets ?? [])];
  if (subscription.previousSecret && subscription.previousSecretExpiresAt !== undefined)
    earlier.push({
      secret: subscription.previousSecret,
      expiresAt: subscription.previousSecretExpiresAt,
    });
  return earlier.filter(
    (entry, index) =>
      nowMs < entry.expiresAt &&
      entry.secret !== subscription.secret &&
      earlier.findIndex((other) => other.secret === entry.secret) === index,
  );
}

/** The secrets that sign at `nowMs`: the current one, then each earlier one during its grace period. */
export function activeSecrets(subscription: SubscriptionSecrets, nowMs: number): string[] {
  return [
    subscription.secret,
    ...retiringSecrets(subscription, nowMs).map((entry) => entry.secret),
  ];
}

/**
 * The `user-agent` of every webhook request: names the sender to the receiver's logs, and
 * passes the web firewalls that refuse requests without one.
 */
export const WEBHOOK_USER_AGENT = 'change-bridge-webhooks/1';

/**
 * All headers of one webhook request (design.md "Webhook request").
 * @example webhookHeaders({ id, timestampSeconds, body, secrets })['webhook-signature']
 */
export function webhookHeaders(input: SignInput): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
    'webhook-id': input.id,
    'webhook-timestamp': String(input.timestampSeconds),
    'webhook-signature': signatureHeader(input),
  };
}
