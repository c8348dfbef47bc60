// A static import, so that esbuild puts the list inside a bundle (the Lambda functions carry no
// node_modules); undici declares no `exports`, so its files are reachable by path.
import fetchConstants from 'undici/lib/web/fetch/constants.js';
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
  FetchConstantsSchema.parse(fetchConstants).badPorts.map(Number),
);

/** Who could not reach an admin API listening on a port fetch blocks: the CLI and the console. */
export const ADMIN_API_UNREACHABLE = 'neither the CLI nor the console could reach the admin API';

/**
 * Refines a port schema to refuse {@link FETCH_BLOCKED_PORTS}: listening there is possible, but
 * fetch and browsers never connect to it. `unreachable` says who then could not reach the
 * listener (e.g. `neither the CLI nor the console could reach the admin API`).
 * @example withoutFetchBlockedPorts(z.number().int(), 'neither a bridge nor call could reach the simulator')
 */
export function withoutFetchBlockedPorts<T extends z.ZodType<number>>(
  schema: T,
  unreachable: string,
) {
  return schema.refine((port) => !FETCH_BLOCKED_PORTS.has(port), {
    error: (issue) =>
      `${String(issue.input)} is a port fetch and browsers never connect to (WHATWG "bad ports"): ${unreachable}; choose another`,
  });
}
