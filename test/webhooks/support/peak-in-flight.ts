/**
 * Most requests that were in flight at one endpoint at once, from their arrival and answer
 * times (an answer at the same instant as an arrival ends first).
 * @example peakInFlight([{ start: 0, end: 10 }, { start: 5, end: 15 }]) === 2
 */
export function peakInFlight(spans: readonly { start: number; end: number }[]): number {
  const edges = spans.flatMap((s) => [
    { at: s.start, delta: 1 },
    { at: s.end, delta: -1 },
  ]);
  edges.sort((a, b) => a.at - b.at || a.delta - b.delta);
  let current = 0;
  let peak = 0;
  for (const edge of edges) {
    current += edge.delta;
    peak = Math.max(peak, current);
  }
  return peak;
}
