import { formatProductSample, type ProductSample } from '../simulator/product-samples.ts';

/** What the banner of `change-bridge start` tells. */
export interface BannerFacts {
  adminUrl: string;
  simulatorUrl: string | undefined;
  /** CONNECTOR_BASE_URL, when it is polled instead of the simulator. */
  connectorUrl?: string | undefined;
  demoReceiverUrl: string | undefined;
  productSamples: readonly ProductSample[];
  /** Streams of the CONNECTOR_* (or simulator) connection. */
  localStreams: number;
  /** The entity types those streams follow (POLL_ENTITIES), in stream order. */
  localEntityTypes: readonly string[];
  /** Enabled connections added at run time (`connections add`), and their streams. */
  storedConnections: number;
  storedStreams: number;
  pollIntervalMs: number;
  dataDir: string;
  /** `--demo-receiver` given: no hint to subscribe an endpoint of one's own. */
  demoReceiver: boolean;
  /** WEBHOOK_ALLOW_PRIVATE: whether a receiver on 127.0.0.1 may be subscribed. */
  allowPrivate: boolean;
  /** Subscriptions stored at start (a restart of a data dir keeps them): none, and the banner says how to add one. */
  subscriptions: number;
}

/** Where the admin commands go when neither --api nor BRIDGE_PORT says otherwise. */
const CLI_DEFAULT_API = 'http://127.0.0.1:4000';

/**
 * The command that subscribes an endpoint of one's own to this bridge: a local receiver
 * where private addresses are allowed (https elsewhere), and `--api` unless the bridge is
 * where the admin commands go by default.
 */
function subscribeCommand(facts: BannerFacts): string {
  const url = facts.allowPrivate
    ? 'http://127.0.0.1:9000/hook'
    : 'https://receiver.example.com/hook';
  return `  npx change-bridge subscriptions add --url ${url}${apiFlag(facts)}`;
}

/** ` --api <admin URL>` unless the bridge is where the admin commands go by default. */
function apiFlag(facts: BannerFacts): string {
  return facts.adminUrl === CLI_DEFAULT_API ? '' : ` --api ${facts.adminUrl}`;
}

/** A URL as the banner shows it: without credentials or a query a user put in it. Pure. */
function shownUrl(url: string | undefined): string | undefined {
  if (url === undefined || !URL.canParse(url)) return url;
  const shown = new URL(url);
  shown.username = '';
  shown.password = '';
  shown.search = '';
  return shown.href;
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** Characters of a banner line's list after its label, before the list goes on a line below. */
const BANNER_LIST_WIDTH = 72;

/**
 * `items` joined by commas on as few lines as fit {@link BANNER_LIST_WIDTH} each (an item
 * longer than that gets a line of its own). Pure.
 * @example wrappedList(['customer', 'resource'], 72) // ['customer, resource']
 */
export function wrappedList(items: readonly string[], width = BANNER_LIST_WIDTH): string[] {
  const lines: string[] = [];
  let line = '';
  for (const item of new Set(items)) {
    const next = line === '' ? item : `${line}, ${item}`;
    if (line !== '' && next.length + 1 > width) {
      lines.push(`${line},`);
      line = item;
    } else line = next;
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** Lines of `label` (padded to the banner's column) and its list wrapped beneath it. */
function labelledList(label: string, items: readonly string[]): string[] {
  return wrappedList(items).map(
    (part, index) => `  ${(index === 0 ? label : '').padEnd(15)}${part}`,
  );
}

/**
 * The lines `change-bridge start` prints once it runs: where each part listens, what it polls,
 * where data is kept, and how to subscribe. Pure.
 * @example startBanner(facts).join('\n')
 */
export function startBanner(facts: BannerFacts): string[] {
  const lines = ['change-bridge is running'];
  if (facts.simulatorUrl) {
    lines.push(`  simulator      ${facts.simulatorUrl}  (built-in hotel chain with activity)`);
    for (const [index, sample] of facts.productSamples.entries()) {
      const label = index === 0 ? 'products       ' : '               ';
      lines.push(`  ${label}${formatProductSample(sample)}`);
    }
  } else lines.push(`  connector      ${shownUrl(facts.connectorUrl) ?? 'CONNECTOR_BASE_URL'}`);
  lines.push(`  admin API      ${facts.adminUrl}  (${facts.adminUrl}/openapi.json)`);
  lines.push(`  console        ${facts.adminUrl}/`);
  const stored =
    facts.storedConnections > 0
      ? `; ${plural(facts.storedStreams, 'stream')} of ${plural(facts.storedConnections, 'stored connection')}`
      : '';
  lines.push(
    `  polling        ${plural(facts.localStreams, 'stream')} every ${facts.pollIntervalMs / 1000}s${stored}`,
  );
  lines.push(...labelledList('entities', facts.localEntityTypes));
  lines.push(`  data           ${facts.dataDir}/`);
  if (facts.demoReceiverUrl)
    lines.push(
      `  demo receiver  ${facts.demoReceiverUrl}  (verifies signatures with standardwebhooks)`,
    );
  // A data dir started again keeps its subscriptions: say where webhooks go, not how to add one.
  if (facts.subscriptions > 0 && !facts.demoReceiver) {
    lines.push(
      '',
      `Webhooks go to ${plural(facts.subscriptions, 'subscription')}: npx change-bridge subscriptions list${apiFlag(facts)}`,
    );
  } else if (!facts.demoReceiver) {
    lines.push('', 'Send webhooks to your endpoint:', subscribeCommand(facts));
  }
  lines.push('', 'Events:');
  return lines;
}

/** What the started line of `change-bridge start --json` tells. */
export interface StartedFacts {
  adminUrl: string;
  simulatorUrl: string | undefined;
  /** CONNECTOR_BASE_URL, when it is polled instead of the simulator. */
  connectorUrl: string | undefined;
  demoReceiverUrl: string | undefined;
  productSamples: readonly ProductSample[];
  /** Streams of the CONNECTOR_* (or simulator) connection. */
  streams: number;
  /** The entity types those streams follow, in stream order. */
  entityTypes: readonly string[];
  storedConnections: readonly { id: string; streams: number }[];
  requeuedDeliveries: number;
  /** Subscriptions stored at start (see {@link BannerFacts.subscriptions}). */
  subscriptions: number;
  dataDir: string;
  pollIntervalMs: number;
}

/**
 * The fields of the `started` line `change-bridge start --json` writes instead of the banner:
 * the same facts, the connector polled among them (shown as the banner shows it). Pure.
 */
export function startedFields(facts: StartedFacts): Record<string, unknown> {
  return {
    simulator: facts.simulatorUrl,
    connector: facts.simulatorUrl ? undefined : shownUrl(facts.connectorUrl),
    admin: facts.adminUrl,
    dataDir: facts.dataDir,
    streams: facts.streams,
    entityTypes: [...new Set(facts.entityTypes)],
    storedConnections: facts.storedConnections,
    pollIntervalMs: facts.pollIntervalMs,
    demoReceiver: facts.demoReceiverUrl,
    products: facts.productSamples,
    requeuedDeliveries: facts.requeuedDeliveries,
    subscriptions: facts.subscriptions,
  };
}
