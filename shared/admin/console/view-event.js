/** One event: what changed (a readable diff of previous → current), the record, its deliveries. */

import { api } from './api.js';
import { deliveriesPanel } from './deliveries.js';
import { diffRecords, showValue } from './diff.js';
import { h, replace, say, table, time } from './dom.js';

/** @param {import('./diff.js').DiffRow} row */
function diffRow(row) {
  return [
    h('code', {}, row.path || '(record)'),
    row.kind,
    row.kind === 'added' ? '—' : h('del', {}, showValue(row.before)),
    row.kind === 'removed' ? '—' : h('ins', {}, showValue(row.after)),
  ];
}

/**
 * Renders the event page; returns a function that stops its polling.
 * @param {HTMLElement} main
 * @param {string} id
 */
export function renderEvent(main, id) {
  const panel = deliveriesPanel({ event: id });
  const body = h('div', {}, h('p', {}, 'Loading event…'));
  replace(
    main,
    h('p', {}, h('a', { href: '#/' }, '← Overview')),
    h('h2', {}, 'Event ', h('code', {}, id)),
    body,
    h(
      'section',
      { 'aria-labelledby': 'event-deliveries' },
      h('h2', { id: 'event-deliveries' }, 'Deliveries'),
      panel.element,
    ),
  );
  api('GET', `events/${encodeURIComponent(id)}`)
    .then((event) => {
      const data = event.data ?? {};
      const rows = diffRecords(data.previous, data.current);
      replace(
        body,
        h(
          'dl',
          { class: 'facts' },
          h('dt', {}, 'Type'),
          h('dd', {}, h('code', {}, event.type)),
          h('dt', {}, 'Subject'),
          h('dd', {}, event.subject ?? '—'),
          h('dt', {}, 'Detected'),
          h('dd', {}, time(event.time)),
          h('dt', {}, 'Source'),
          h('dd', {}, event.source ?? '—'),
          h('dt', {}, 'Changed fields'),
          h('dd', {}, (data.changedFields ?? []).join(', ') || '—'),
        ),
        h(
          'div',
          { class: 'scroll' },
          table(
            `Changes from previous to current (${rows.length})`,
            ['Field', 'Change', 'Previous', 'Current'],
            rows.map(diffRow),
            'No field differs',
          ),
        ),
        h(
          'details',
          { open: true },
          h('summary', {}, data.current ? 'Record (current)' : 'Record (previous: it was deleted)'),
          h(
            'pre',
            { class: 'json' },
            JSON.stringify(data.current ?? data.previous ?? null, null, 2),
          ),
        ),
        h(
          'details',
          {},
          h('summary', {}, 'Whole event as delivered'),
          h('pre', { class: 'json' }, JSON.stringify(event, null, 2)),
        ),
      );
    })
    .catch((error) => {
      replace(body, h('p', { class: 'error-text' }, error.message));
      say(error.message, true);
    });
  return panel.stop;
}
