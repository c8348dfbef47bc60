import { createHash } from 'node:crypto';

/** How many URLs' endpoint keys {@link endpointOfUrl} remembers before it starts over. */
const URL_KEYS_KEPT = 10_000;
const urlKeys = new Map<string, string>();

/**
 * The endpoint (the scheduler's key, and in AWS the slots item's) of the receiver at `url`: every
 * subscription that posts to one URL shares its concurrency limit, the limit's adaptation, its
 * rate and its Retry-After pause there (README: the receiver at a URL is the endpoint). A hash of
 * the URL, not the URL: its path or query may hold the receiver's own secret, and the key is
 * stored and may be named in errors. Remembered, so a delivery costs a map lookup.
 * @example endpointOfUrl('https://a.example/hook') === endpointOfUrl('https://a.example/hook')
 */
export function endpointOfUrl(url: string): string {
  let key = urlKeys.get(url);
  if (key === undefined) {
    key = `url:${createHash('sha256').update(url).digest('base64url')}`;
    if (urlKeys.size >= URL_KEYS_KEPT) urlKeys.clear();
    urlKeys.set(url, key);
  }
  return key;
}
