import type { SimModel } from './model.ts';
import { SimApiError, type TokenScope } from './query.ts';
import type { SimEnterprise } from './world.ts';

/** What an operation handler gets besides the body: the model and the caller's token scope. */
export interface SimContext {
  model: SimModel;
  scope: TokenScope;
}

/** An operation handler: takes the body without the envelope, returns the response body. */
export type SimHandler = (ctx: SimContext, body: Record<string, unknown>) => unknown;

/**
 * The enterprise an operation acts on. A Portfolio Access Token must name it (`field`,
 * connector-api.md Authentication rule 3); other tokens act on their own enterprise and the
 * field is ignored.
 * @throws SimApiError 400 when the field is missing or names an enterprise outside the scope.
 */
export function requireEnterprise(
  ctx: SimContext,
  asked: string | null | undefined,
  field: string,
): SimEnterprise {
  const enterprises = ctx.model.world.enterprises;
  if (!ctx.scope.portfolio) {
    const own = enterprises.find((e) => e.Id === ctx.scope.enterpriseIds[0]);
    if (!own) throw new SimApiError(500, 'token scope has no enterprise');
    return own;
  }
  if (!asked) throw new SimApiError(400, `${field}: required with a Portfolio Access Token`);
  const enterprise = enterprises.find(
    (e) => e.Id === asked && ctx.scope.enterpriseIds.includes(e.Id),
  );
  if (!enterprise) throw new SimApiError(400, `${field}: no such enterprise in the token scope`);
  return enterprise;
}

/** Like {@link requireEnterprise} for chain-scoped operations (`ChainId`). */
export function requireChain(
  ctx: SimContext,
  asked: string | null | undefined,
  field: string,
): string {
  if (!ctx.scope.portfolio) return ctx.scope.chainIds[0]!;
  if (!asked) throw new SimApiError(400, `${field}: required with a Portfolio Access Token`);
  if (!ctx.scope.chainIds.includes(asked))
    throw new SimApiError(400, `${field}: no such chain in the token scope`);
  return asked;
}
