import { z } from 'zod';
import type { SimWorld } from './world.ts';

/** One enterprise and the AccessToken scoped to it (connector-api.md: one token, one enterprise). */
export const EnterpriseTokenSchema = z.strictObject({
  enterpriseId: z.string().min(1),
  name: z.string(),
  accessToken: z.string().min(1),
});
export type EnterpriseToken = z.infer<typeof EnterpriseTokenSchema>;

/**
 * Gives every enterprise of the world its own AccessToken: the first keeps `firstAccessToken`
 * (so existing defaults hold), enterprise number n (from 2) gets `${firstAccessToken}-n`.
 * @example enterpriseTokens(world, 'sim-access-token')[1]!.accessToken === 'sim-access-token-2'
 */
export function enterpriseTokens(world: SimWorld, firstAccessToken: string): EnterpriseToken[] {
  return world.enterprises.map((enterprise, index) => ({
    enterpriseId: enterprise.Id,
    name: enterprise.Name,
    accessToken: index === 0 ? firstAccessToken : `${firstAccessToken}-${index + 1}`,
  }));
}

/** Looks up the enterprise an AccessToken is scoped to; a map built once, O(1) per request. */
export function enterpriseByToken(tokens: readonly EnterpriseToken[]): Map<string, string> {
  return new Map(tokens.map((token) => [token.accessToken, token.enterpriseId]));
}
