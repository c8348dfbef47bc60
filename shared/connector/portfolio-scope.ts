import { ValidationError } from '../errors.ts';
import type { PortfolioScope } from './connector-config.ts';
import type { OperationSpec } from './operations.ts';

/**
 * Adds the Portfolio Access Token scope to a request: where the contract requires it
 * (ChainIds for customers/getAll, ChainId for customers/update and loyaltyPrograms/update,
 * EnterpriseId for paymentRequests/add and vouchers/add), and as the `EnterpriseIds` or
 * `ChainIds` filter of every read that takes one, so a connection scoped to some of the
 * token's enterprises reads only theirs, and one scoped to some chains reads only their
 * chain-level records. Omitted, the service answers for every enterprise or chain the token
 * reaches: a scope naming chains alone does not narrow enterprise-level reads, since no
 * operation tells a chain's enterprises (README, Connections). A value the caller gave wins;
 * a null is none.
 * @throws ValidationError when the scope is needed but cannot be chosen unambiguously.
 */
export function applyPortfolioScope(
  spec: OperationSpec,
  body: Record<string, unknown>,
  scope: PortfolioScope | undefined,
): Record<string, unknown> {
  if (!scope) return body;
  const scoped = { ...body };
  for (const [filter, ids] of [
    ['EnterpriseIds', scope.enterpriseIds],
    ['ChainIds', scope.chainIds],
  ] as const) {
    if (ids.length > 0 && scoped[filter] == null && takesField(spec, filter)) scoped[filter] = ids;
  }
  const field = spec.portfolioScope;
  // A null is no value (customers/update's ChainId is nullable): the scope fills it in too.
  if (!field || scoped[field] != null) return scoped;
  const ids = field === 'EnterpriseId' ? scope.enterpriseIds : scope.chainIds;
  if (ids.length === 1) return { ...scoped, [field]: ids[0] };
  throw new ValidationError(`${spec.name} request`, [
    {
      path: field,
      message: `required with a Portfolio Access Token (configure ${field === 'ChainIds' ? 'a chain' : `exactly one ${field === 'EnterpriseId' ? 'enterprise' : 'chain'}`} or pass ${field})`,
    },
  ]);
}

/** Whether the operation's request has `field` (its schemas are zod objects). */
function takesField(spec: OperationSpec, field: string): boolean {
  const shape = (spec.request as { shape?: Record<string, unknown> }).shape;
  return shape !== undefined && field in shape;
}
