/**
 * The signals Node 20 keeps on `signal` for those made from it with AbortSignal.any: one weak
 * reference each, for as long as `signal` lives, never pruned; 0 where Node keeps none.
 */
export function dependantSignals(signal: AbortSignal): number {
  const key = Object.getOwnPropertySymbols(signal).find(
    (symbol) => symbol.description === 'kDependantSignals',
  );
  const dependants = key ? (signal as unknown as Record<symbol, unknown>)[key] : undefined;
  // Node's own Set (SafeSet), not this realm's: read by its size.
  return (dependants as { size?: number } | undefined)?.size ?? 0;
}
