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
    accessToken: enterpriseAccessToken(firstAccessToken, index),
  }));
}

/**
 * The AccessToken of the enterprise at `index` (from 0) of {@link enterpriseTokens}. Pure.
 * @example enterpriseAccessToken('sim-access-token', 2) === 'sim-access-token-3'
 */
export function enterpriseAccessToken(firstAccessToken: string, index: number): string {
  return index === 0 ? firstAccessToken : `${firstAccessToken}-${index + 1}`;
}

/**
 * The index (from 0) of the enterprise of `enterprises` whose AccessToken is `token`, or -1. A
 * Portfolio Access Token equal to one would act as that enterprise's token (AccessTokens are
 * looked up first), so the simulator refuses such a pair. Pure.
 * @example enterpriseIndexOfToken('sim-access-token', 3, 'sim-access-token-2') === 1
 */
export function enterpriseIndexOfToken(
  firstAccessToken: string,
  enterprises: number,
  token: string,
): number {
  for (let index = 0; index < enterprises; index += 1)
    if (enterpriseAccessToken(firstAccessToken, index) === token) return index;
  return -1;
}

/** Looks up the enterprise an AccessToken is scoped to; a map built once, O(1) per request. */
export function enterpriseByToken(tokens: readonly EnterpriseToken[]): Map<string, string> {
  return new Map(tokens.map((token) => [token.accessToken, token.enterpriseId]));
}
