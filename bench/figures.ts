import { pathToFileURL } from 'node:url';

/** One row of the final table: a measured figure against its design.md target. */
export interface Figure {
  figure: string;
  measured: string;
  target: string;
  /** Undefined for figures printed for information, with no target of their own. */
  met: boolean | undefined;
}

const recorded: Figure[] = [];

/** Records a figure for the final table of `npm run bench` and prints it at once. */
export function recordFigure(figure: Figure): void {
  recorded.push(figure);
  const verdict = figure.met === undefined ? 'info' : figure.met ? 'met' : 'MISSED';
  console.log(`  => ${figure.figure}: ${figure.measured} (target ${figure.target}: ${verdict})`);
}

/** Every figure recorded so far, in order. */
export function recordedFigures(): readonly Figure[] {
  return recorded;
}

/** The value at percentile `p` (0..100) of ascending `sorted`, nearest rank. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

/** Formats a number with thousands separators and `digits` decimals. */
export function formatNumber(value: number, digits = 0): string {
  return value.toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

/** Renders rows as a plain-text table with a header rule. */
export function renderTable(header: readonly string[], rows: readonly string[][]): string {
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.map(line)].join('\n');
}

/** The final table of recorded figures. */
export function figuresTable(figures: readonly Figure[] = recorded): string {
  return renderTable(
    ['figure', 'measured', 'target', 'met?'],
    figures.map((f) => [
      f.figure,
      f.measured,
      f.target,
      f.met === undefined ? '-' : f.met ? 'yes' : 'NO',
    ]),
  );
}

/** True when the module at `url` is the script node was started with (a benchmark run alone). */
export function isMain(url: string): boolean {
  return url === pathToFileURL(process.argv[1] ?? '').href;
}

/** Samples `process.memoryUsage().rss` every `intervalMs` until stopped; returns the peak in bytes. */
export function sampleRss(intervalMs = 50): { stop(): number } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().rss);
    },
  };
}

/**
 * Silences the AWS SDK's Node 20 support notice (toolchain.md); it is read when a client is
 * built, so calling this at the start of a benchmark is early enough.
 */
export function quietAwsSdkNotice(): void {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
}
