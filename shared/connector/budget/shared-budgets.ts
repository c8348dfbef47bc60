import { createHash } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { BudgetLimits } from './budget-types.ts';
import { type GrantLedger, MemoryGrantLedger } from './grant-ledger.ts';
import { TokenBudget } from './token-budget.ts';

/** Margin added to the server's window by default (see {@link BudgetLimits.marginMs}). */
export const BUDGET_MARGIN_MS_DEFAULT = 500;

/**
 * The ledgers of a process that was given none, one per clock: budgets shared within the
 * process only. Grant times and pauses are times of their clock, meaningless on another (a
 * test's manual clock).
 */
const processLedgers = new WeakMap<Clock, MemoryGrantLedger>();

function processLedgerOf(clock: Clock): MemoryGrantLedger {
  let ledger = processLedgers.get(clock);
  if (!ledger) {
    ledger = new MemoryGrantLedger();
    processLedgers.set(clock, ledger);
  }
  return ledger;
}
const budgets = new WeakMap<Clock, WeakMap<GrantLedger, Map<string, TokenBudget>>>();

/**
 * The key a token's grants are recorded under: a digest, so the ledger never holds a token.
 * @example budgetKeyOf('sim-access-token') // 'Xk3…' (22 characters)
 */
export function budgetKeyOf(accessToken: string): string {
  return createHash('sha256').update(accessToken).digest('base64url').slice(0, 22);
}

/**
 * The budget of one AccessToken: every client built with the same token, limits, clock and
 * ledger in this process shares one scheduler (a Portfolio Access Token shares one budget
 * over its enterprises), and every process sharing the ledger shares its grants.
 */
export function sharedBudgetFor(
  accessToken: string,
  limits: BudgetLimits,
  clock: Clock,
  ledger: GrantLedger = processLedgerOf(clock),
): TokenBudget {
  let byLedger = budgets.get(clock);
  if (!byLedger) {
    byLedger = new WeakMap();
    budgets.set(clock, byLedger);
  }
  let byKey = byLedger.get(ledger);
  if (!byKey) {
    byKey = new Map();
    byLedger.set(ledger, byKey);
  }
  const key = budgetKeyOf(accessToken);
  const id = `${key}/${limits.requests}/${limits.windowMs}/${limits.marginMs}`;
  let budget = byKey.get(id);
  if (!budget) {
    budget = new TokenBudget(key, limits, clock, ledger);
    byKey.set(id, budget);
  }
  return budget;
}
