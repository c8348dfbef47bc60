import { randomBytes } from 'node:crypto';

/**
 * What the bridge's clients of its own local servers (dynalite, the disk queue's SQS endpoint)
 * sign with: an access key id drawn for this process, which those servers require of a request
 * that comes over the network. Another local user's process does not know it (it is in no file,
 * argument or variable), so it cannot read the subscriptions' secrets through those ports.
 */
export const LOCAL_CREDENTIALS = {
  accessKeyId: `local${randomBytes(16).toString('hex')}`,
  secretAccessKey: 'local',
} as const;

/**
 * Whether a request's `authorization` header (SigV4) names `accessKeyId` as its credential.
 * Pure.
 * @example signedWith('AWS4-HMAC-SHA256 Credential=local-1a2b/20260101/…', 'local-1a2b') === true
 */
export function signedWith(authorization: string | undefined, accessKeyId: string): boolean {
  return authorization?.match(/Credential=([^/,\s]+)\//)?.[1] === accessKeyId;
}

/**
 * The endpoint of a local store that listens on no port (reached in process only): its SDK
 * client needs a URL, and this one reaches nothing (`.invalid` never resolves, RFC 6761).
 */
export const UNSERVED_DYNAMODB_ENDPOINT = 'http://local-dynamodb.invalid';

/** As {@link UNSERVED_DYNAMODB_ENDPOINT}, for the disk queue: its queue URLs start with it. */
export const UNSERVED_QUEUE_ENDPOINT = 'http://local-queue.invalid';
