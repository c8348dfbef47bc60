/** Small SVG charts: stacked bars with a legend. No library. */

import { h } from './dom.js';

const SVG = 'http://www.w3.org/2000/svg';
const PALETTE = ['#2563eb', '#16a34a', '#dc2626', '#d97706', '#7c3aed', '#0891b2', '#6b7280'];

/**
 * @param {string} tag
 * @param {Record<string, string | number>} attrs
 * @param {...Node} children
 */
function svg(tag, attrs, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, String(value));
  element.append(...children);
  return element;
}

/**
 * @typedef {{ label: string, values: Record<string, number> }} Bucket
 */

/**
 * A stacked bar chart in a figure; the figure's caption and the image's label say what
 * it shows, and every bar has a tooltip with its figures.
 * `colors` picks a palette index per series (default: in order).
 * @param {{ title: string, summary: string, buckets: Bucket[], series: string[], unit: string, colors?: number[] }} chart
 */
export function stackedBars({ title, summary, buckets, series, unit, colors }) {
  const colorOf = (/** @type {number} */ index) => (colors?.[index] ?? index) % PALETTE.length;
  const width = 1000;
  const height = 140;
  const base = height - 18;
  const max = Math.max(
    1,
    ...buckets.map((b) => series.reduce((sum, s) => sum + (b.values[s] ?? 0), 0)),
  );
  const slot = width / Math.max(1, buckets.length);
  const bars = buckets.map((bucket, index) => {
    let top = base;
    const parts = series.flatMap((name, seriesIndex) => {
      const value = bucket.values[name] ?? 0;
      if (value === 0) return [];
      const barHeight = (value / max) * (base - 16);
      top -= barHeight;
      return [
        svg('rect', {
          x: index * slot + 2,
          y: top,
          width: Math.max(1, slot - 4),
          height: barHeight,
          fill: PALETTE[colorOf(seriesIndex)],
        }),
      ];
    });
    const figures = series
      .filter((name) => bucket.values[name])
      .map((name) => `${name}: ${bucket.values[name]}`)
      .join(', ');
    const tip = svg('title', {});
    tip.textContent = `${bucket.label} — ${figures || `no ${unit}`}`;
    return svg('g', {}, tip, ...parts);
  });
  const axis = svg('line', { x1: 0, y1: base, x2: width, y2: base, stroke: '#9ca3af' });
  const labels = [buckets[0], buckets[buckets.length - 1]].map((bucket, index) => {
    const text = svg('text', {
      x: index === 0 ? 0 : width,
      y: height - 4,
      'text-anchor': index === 0 ? 'start' : 'end',
      class: 'axis-label',
    });
    text.textContent = bucket?.label ?? '';
    return text;
  });
  const maxLabel = svg('text', { x: 0, y: 10, class: 'axis-label' });
  maxLabel.textContent = `max ${max} ${unit}`;
  const image = svg(
    'svg',
    { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': `${title}: ${summary}` },
    axis,
    maxLabel,
    ...labels,
    ...bars,
  );
  const legend = h(
    'ul',
    { class: 'legend' },
    ...series.map((name, index) =>
      h('li', {}, h('span', { class: `swatch swatch-${colorOf(index)}` }), name),
    ),
  );
  return h(
    'figure',
    { class: 'chart' },
    h('figcaption', {}, title, ' ', h('small', {}, summary)),
    image,
    legend,
  );
}

const LATENCY_EDGES_MS = [10, 25, 50, 100, 250, 500, 1000, 2500];

/**
 * A histogram of attempt latencies, split by outcome (delivered or not).
 * @param {{ latencyMs: number, outcome: string }[]} attempts
 */
export function latencyHistogram(attempts) {
  const labels = [
    ...LATENCY_EDGES_MS.map((edge) => `< ${edge} ms`),
    `≥ ${LATENCY_EDGES_MS.at(-1)} ms`,
  ];
  /** @type {Bucket[]} */
  const buckets = labels.map((label) => ({ label, values: {} }));
  for (const attempt of attempts) {
    let index = LATENCY_EDGES_MS.findIndex((edge) => attempt.latencyMs < edge);
    if (index === -1) index = LATENCY_EDGES_MS.length;
    const name = attempt.outcome === 'delivered' ? 'delivered' : 'failed';
    const values = buckets[index].values;
    values[name] = (values[name] ?? 0) + 1;
  }
  return { buckets, series: ['delivered', 'failed'] };
}
