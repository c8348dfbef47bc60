import { createHash } from 'node:crypto';

/** How many URLs' endpoint keys {@link endpointOfUrl} remembers before it starts over. */
const URL_KEYS_KEPT = 10_000;
const urlKeys = new Map<string, string>();

/**
 * The endpoint (the scheduler's key, and in AWS the slots item's) of the receiver at `url`: every
 * subscription that posts to one URL shares its concurrency limit, the limit's adaptation, its
 * rate and its Retry-After pause there (README: the receiver at a URL is the endpoint). A hash of
 * the URL, not the URL: its path or query may hold the receiver's own secret, and the key is
 * stored and may be named in errors. Of the URL in its WHATWG serialisation, so two spellings of
 * one receiver (`HTTP://Host:80` and `http://host/`) are one endpoint, not two with a limit and a
 * pause each; a URL already in that form keys, as before, as the hash of itself. Remembered, so
 * a delivery costs a map lookup.
 * @example endpointOfUrl('HTTP://A.example:443/hook') !== endpointOfUrl('https://a.example/hook')
 * @example endpointOfUrl('HTTPS://A.example:443/hook') === endpointOfUrl('https://a.example/hook')
 */
export function endpointOfUrl(url: string): string {
  let key = urlKeys.get(url);
  if (key === undefined) {
    key = `url:${createHash('sha256').update(serialised(url)).digest('base64url')}`;
    if (urlKeys.size >= URL_KEYS_KEPT) urlKeys.clear();
    urlKeys.set(url, key);
  }
  return key;
}

/** `url` as the WHATWG URL parser writes it; as given when it does not parse. Pure. */
function serialised(url: string): string {
  return URL.canParse(url) ? new URL(url).href : url;
}
