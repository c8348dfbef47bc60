import type { Command } from 'commander';
import { z } from 'zod';
import {
  ConnectionListSchema,
  ConnectionRemovedSchema,
  ConnectionViewSchema,
} from '../../admin/schemas.ts';
import { ConnectionIdSchema } from '../../connections/connection.ts';
import { AddConnectionInputSchema } from '../../connections/connection-admin.ts';
import {
  type ConnectionDetail,
  ConnectionDetailSchema,
  type ParkedStreams,
} from '../../connections/connection-detail.ts';
import { type PortfolioScope, parsePortfolioScope } from '../../connector/connector-config.ts';
import { formatDuration } from '../../duration.ts';
import { ValidationError } from '../../errors.ts';
import { CliExit, type CliIo, EXIT_USAGE } from '../exit-codes.ts';
import { ADMIN_DELETE_TIMEOUT_MS, type AdminApiClient, checkInput } from './api-client.ts';
import { flagValidationText } from './input-refusal.ts';
import {
  CommonOptionsSchema,
  clientFor,
  formatTable,
  segment,
  shortTime,
  withCommonOptions,
  writeJson,
} from './output.ts';
import { readProcessStdin, readSecret } from './read-secret.ts';

const AddOptionsSchema = CommonOptionsSchema.extend({
  id: z.string(),
  accessTokenStdin: z.boolean().optional(),
  accessTokenFile: z.string().optional(),
  entities: z.string().optional(),
  interval: z.string().optional(),
  initialSync: z.string().optional(),
  portfolioScope: z.string().optional(),
  productIds: z.string().optional(),
  exportIds: z.string().optional(),
});

const RemoveOptionsSchema = CommonOptionsSchema.extend({ keepState: z.boolean().optional() });

/** The flag of each field of `connections add`. */
const ADD_FLAGS = {
  id: '--id',
  accessToken: '--access-token-stdin or --access-token-file',
  entities: '--entities',
  interval: '--interval',
  initialSync: '--initial-sync',
  portfolioScope: '--portfolio-scope',
  productIds: '--product-ids',
  exportIds: '--export-ids',
};

/** `--portfolio-scope` read; exits 2 naming the flag once and each entry it refuses. */
function portfolioScopeOf(text: string): PortfolioScope {
  try {
    return parsePortfolioScope(text, ADD_FLAGS.portfolioScope);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new CliExit(EXIT_USAGE, flagValidationText(ADD_FLAGS.portfolioScope, error));
  }
}

/** Exits 2 naming `id` when it cannot be a connection id, bridge or no bridge. */
function checkConnectionId(id: string): void {
  checkInput(z.object({ id: ConnectionIdSchema }), { id }, 'id');
}

function describeConnection(connection: ConnectionDetail): string {
  return [
    `connection ${connection.id} (${connection.enabled ? 'enabled' : 'disabled'}, ${connection.origin})`,
    ...(connection.error !== undefined ? [`  not polled    ${connection.error}`] : []),
    ...parkedLines(connection.parkedStreams),
    `  entities      ${connection.entities?.join(', ') ?? "the deployment's (POLL_ENTITIES)"}`,
    `  interval      ${connection.intervalMs ? formatDuration(connection.intervalMs) : "the deployment's (POLL_INTERVAL)"}`,
    `  initial sync  ${connection.initialSync ?? "the deployment's (INITIAL_SYNC)"}`,
    ...(connection.portfolioScope
      ? [
          `  portfolio     chains ${connection.portfolioScope.chainIds.join(',') || '-'}; enterprises ${connection.portfolioScope.enterpriseIds.join(',') || '-'}`,
        ]
      : []),
    ...(connection.productIds ? [`  products      ${connection.productIds.join(', ')}`] : []),
    ...(connection.exportIds ? [`  exports       ${connection.exportIds.join(', ')}`] : []),
    `  created       ${shortTime(connection.createdAt)}`,
  ].join('\n');
}

/**
 * Says a connection's parked streams, if any: how many, and the first with its reason.
 * @example parkedLines({ count: 2, total: 2, first: { streamId: 'h:customer', reason: '401 …' } })
 */
function parkedLines(parked: ParkedStreams | undefined): string[] {
  if (!parked?.first) return [];
  const { count, total, first } = parked;
  return [
    `  parked        ${count} of ${total} streams, their polls refused for authorization; polled again once the token changes or after streams reset`,
    `                ${first.streamId}: ${first.reason ?? 'no reason kept'}`,
  ];
}

/**
 * The PARKED cell of `connections list`: `2 of 13` streams parked, `-` for none (or from a
 * bridge whose list gives no parkedStreams); `connections show ID` says why.
 */
function parkedCell(parked: ParkedStreams | undefined): string {
  return parked && parked.count > 0 ? `${parked.count} of ${parked.total}` : '-';
}

/**
 * Every connection `GET /connections` lists, page after page as its `nextCursor` leads, in its
 * order (the environment's first, then by id).
 */
async function listEveryConnection(client: AdminApiClient): Promise<ConnectionDetail[]> {
  const connections: ConnectionDetail[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.call('GET', '/connections', ConnectionListSchema, {
      query: { cursor },
    });
    connections.push(...page.connections);
    // A page with no connection would lead nowhere: the listing ends there.
    cursor = page.connections.length > 0 ? page.nextCursor : undefined;
  } while (cursor !== undefined);
  return connections;
}

/**
 * Adds `connections add --id ID --access-token-stdin [--entities ...] [--interval 1m]
 * [--initial-sync baseline|emit] | list | show ID | disable ID | enable ID | remove ID
 * [--keep-state]` (design.md, CLI). The AccessToken is read from stdin or a file, never a
 * flag value, and no command prints it.
 */
export function registerConnectionCommands(program: Command, io: CliIo): void {
  const group = program
    .command('connections')
    .description(
      'connections as data: one hotel’s AccessToken each, polled without a restart (the ClientToken belongs to the deployment)',
    );

  withCommonOptions(
    group
      .command('add')
      .description('register a connection; its AccessToken is stored encrypted and never shown')
      .requiredOption(
        '--id <id>',
        'connection id: letters, digits, _ or - (stream ids start with it)',
      )
      .option('--access-token-stdin', 'read the AccessToken from stdin')
      .option('--access-token-file <path>', 'read the AccessToken from a file')
      .option('--entities <types>', 'comma-separated entity types (default: POLL_ENTITIES)')
      .option('--interval <duration>', 'poll interval, e.g. 1m (default: POLL_INTERVAL)')
      .option('--initial-sync <mode>', 'baseline or emit (default: INITIAL_SYNC)')
      .option(
        '--portfolio-scope <scope>',
        'for a Portfolio Access Token: chain:<uuid>,enterprise:<uuid>,…',
      )
      .option('--product-ids <ids>', 'products whose prices are followed: id or id@Time/Zone, …')
      .option('--export-ids <ids>', 'exports to follow, comma-separated'),
  ).action(async (raw: unknown) => {
    const options = AddOptionsSchema.parse(raw);
    const settings = {
      id: options.id,
      ...(options.entities !== undefined ? { entities: options.entities } : {}),
      ...(options.interval !== undefined ? { interval: options.interval } : {}),
      ...(options.initialSync !== undefined ? { initialSync: options.initialSync } : {}),
      ...(options.portfolioScope !== undefined
        ? { portfolioScope: portfolioScopeOf(options.portfolioScope) }
        : {}),
      ...(options.productIds !== undefined ? { productIds: options.productIds } : {}),
      ...(options.exportIds !== undefined ? { exportIds: options.exportIds } : {}),
    };
    // Every other field and --api are checked before the token is asked for: at a terminal it
    // is pasted first, and a typo in a flag should not cost that.
    const client = clientFor(options);
    // (A stand-in token: the schema has refinements, so it cannot omit the field.)
    checkInput(AddConnectionInputSchema, { ...settings, accessToken: '-' }, 'body', ADD_FLAGS);
    if (options.accessTokenStdin && !io.readStdin && process.stdin.isTTY) {
      // Typed at a terminal: say what is awaited (the input is read, never echoed back by us).
      io.err('Paste the AccessToken, then press Enter and Ctrl-D');
    }
    const accessToken = await readSecret(
      {
        ...(options.accessTokenStdin ? { stdin: true } : {}),
        ...(options.accessTokenFile !== undefined ? { file: options.accessTokenFile } : {}),
        flags: { stdin: '--access-token-stdin', file: '--access-token-file' },
      },
      io.readStdin ?? readProcessStdin,
    );
    const answer = await client.callWithStatus('POST', '/connections', ConnectionViewSchema, {
      check: { body: AddConnectionInputSchema },
      // A refused token is named by the flag it came from.
      flags: {
        ...ADD_FLAGS,
        accessToken:
          options.accessTokenFile !== undefined ? '--access-token-file' : '--access-token-stdin',
      },
      body: { ...settings, accessToken },
    });
    // `created`: false when the same add landed before (200), so a script can tell.
    if (options.json) return writeJson(io, { ...answer.body, created: answer.status === 201 });
    // 200: the same add landed before (a retry after a timeout or an interrupted run).
    if (answer.status === 200)
      return io.out(
        `Added already, unchanged (the same id, settings and token): ${describeConnection(answer.body)}`,
      );
    io.out(`Added ${describeConnection(answer.body)}\nIt is polled within one interval.`);
  });

  withCommonOptions(
    group.command('list').description('list connections (never their tokens)'),
  ).action(async (raw: unknown) => {
    const options = CommonOptionsSchema.parse(raw);
    const connections = await listEveryConnection(clientFor(options));
    if (options.json) return writeJson(io, connections);
    if (connections.length === 0) return io.out('no connections');
    io.out(
      formatTable(
        ['ID', 'STATE', 'PARKED', 'ENTITIES', 'INTERVAL', 'ORIGIN', 'CREATED'],
        connections.map((c) => [
          c.id,
          c.error !== undefined ? 'not polled' : c.enabled ? 'enabled' : 'disabled',
          parkedCell(c.parkedStreams),
          c.entities ? String(c.entities.length) : 'default',
          c.intervalMs ? formatDuration(c.intervalMs) : 'default',
          c.origin,
          shortTime(c.createdAt),
        ]),
      ),
    );
  });

  withCommonOptions(
    group
      .command('show')
      .description('one connection (never its token)')
      .argument('<id>', 'connection id'),
  ).action(async (id: string, raw: unknown) => {
    const options = CommonOptionsSchema.parse(raw);
    checkConnectionId(id);
    const connection = await clientFor(options).call(
      'GET',
      `/connections/${segment(id)}`,
      ConnectionDetailSchema,
    );
    if (options.json) return writeJson(io, connection);
    io.out(describeConnection(connection));
  });

  for (const verb of ['disable', 'enable'] as const) {
    withCommonOptions(
      group
        .command(verb)
        .description(
          verb === 'disable'
            ? 'stop polling at once; the stream state stays'
            : 'resume polling from the stored state',
        )
        .argument('<id>', 'connection id'),
    ).action(async (id: string, raw: unknown) => {
      const options = CommonOptionsSchema.parse(raw);
      checkConnectionId(id);
      const connection = await clientFor(options).call(
        'POST',
        `/connections/${segment(id)}/${verb}`,
        ConnectionViewSchema,
      );
      if (options.json) return writeJson(io, connection);
      io.out(`${verb === 'disable' ? 'Disabled' : 'Enabled'} connection ${connection.id}`);
    });
  }

  withCommonOptions(
    group
      .command('remove')
      .description('stop polling; delete the connection, its stored token and its streams’ state')
      .argument('<id>', 'connection id')
      .option('--keep-state', 'keep the streams’ state and snapshots (re-adding the id resumes)'),
  ).action(async (id: string, raw: unknown) => {
    const options = RemoveOptionsSchema.parse(raw);
    checkConnectionId(id);
    const removed = await clientFor(options).call(
      'DELETE',
      `/connections/${segment(id)}`,
      ConnectionRemovedSchema,
      {
        query: { keepState: options.keepState ? 'true' : undefined },
        timeoutMs: ADMIN_DELETE_TIMEOUT_MS,
      },
    );
    if (options.json) return writeJson(io, removed);
    io.out(
      `Removed connection ${removed.id} and its token; ${
        options.keepState
          ? 'its streams’ state was kept'
          : removed.stateDeletion === 'background'
            ? `${removed.streamsDeleted} streams’ state removed (hidden now; their snapshots are deleted in the background within minutes)`
            : `${removed.streamsDeleted} streams’ state deleted`
      }`,
    );
  });
}
