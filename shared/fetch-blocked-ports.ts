import { createRequire } from 'node:module';
import { z } from 'zod';

/** The part of undici's fetch constants read here: the WHATWG "bad ports" as it checks them. */
const FetchConstantsSchema = z.object({ badPorts: z.array(z.string().regex(/^\d+$/)) });

/**
 * The ports fetch never connects to (the WHATWG fetch "bad ports": 6000, 6665-6669, 10080…),
 * read from the undici that the CLI's fetch is: the very list behind its `bad port` refusal,
 * so `start` and the CLI cannot disagree. Browsers block the same ports, so the console could
 * not be opened on one either.
 */
export const FETCH_BLOCKED_PORTS: ReadonlySet<number> = new Set(
  FetchConstantsSchema.parse(
    // undici declares no `exports`: its files are reachable by path, but carry no types.
    createRequire(import.meta.url)('undici/lib/web/fetch/constants.js'),
  ).badPorts.map(Number),
);
