/** The Connector API's published budget: 200 requests per AccessToken in any 30-second window. */
export const CONNECTOR_REQUESTS_PER_WINDOW = 200;
export const CONNECTOR_RATE_WINDOW_MS = 30_000;

/** A request budget: at most `requests` in any sliding window of `windowMs`. */
export interface RateLimit {
  requests: number;
  windowMs: number;
}
