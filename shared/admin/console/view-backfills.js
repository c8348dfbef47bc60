/**
 * Backfills: start one, and the progress of the jobs the API lists (`GET /backfill`, newest
 * first, wherever they were started), each read as `GET /backfill/{id}?streams=0` (its totals
 * alone) until its webhooks are all delivered; an older job is shown by its id.
 */

import { api } from './api.js';
import { backfillPercent, backfillStanding, streamCountsLine } from './backfill-figures.js';
import { readBackfillIdField } from './backfill-id-field.js';
import { readCommaField } from './comma-field.js';
import { confirmAction } from './confirm.js';
import {
  badge,
  emptyRow,
  failedPlaceholder,
  h,
  keyedChildren,
  replace,
  say,
  tableShell,
  time,
} from './dom.js';
import { every } from './poll.js';

const BACKFILLS_POLL_MS = 10_000;
/** The newest jobs the page shows: a reading of each at every refresh while it runs. */
const JOBS_SHOWN = 20;
const HEADERS = ['Job', 'Progress', 'Streams', 'Read', 'Webhooks', 'Where it stands'];
const COUNT = new Intl.NumberFormat('en-US');

/**
 * The items of the form's comma-separated field `name`, or undefined when an empty item is
 * refused (the API would refuse it too): the field says why and nothing is sent.
 * @param {HTMLFormElement} form
 * @param {string} name
 * @param {string} label
 * @returns {string[] | undefined}
 */
function formList(form, name, label) {
  const field = /** @type {HTMLInputElement} */ (form.elements.namedItem(name));
  const read = readCommaField(field.value, label);
  field.setCustomValidity('problem' in read ? read.problem : '');
  if (!('problem' in read)) return read.items;
  field.reportValidity();
  say(read.problem, true);
  return undefined;
}

/** @param {any} job `GET /backfill/{id}` */
function jobRow(job) {
  const percent = backfillPercent(job);
  return h(
    'tr',
    {},
    h(
      'td',
      {},
      h('code', {}, job.id),
      job.emit ? [' ', badge('emit', 'warn')] : null,
      h('br'),
      h('small', {}, 'started ', time(job.startedAt)),
    ),
    h(
      'td',
      {},
      // Without a value the bar is indeterminate: estimating, not 0 % nor the empty years' 80 %.
      h('progress', {
        max: 1,
        value: percent === null ? undefined : job.fraction,
        'aria-label': `Progress of ${job.id}`,
      }),
      percent === null ? ' estimating' : ` ${percent}%`,
    ),
    h('td', {}, streamCountsLine(job.streamCounts)),
    h(
      'td',
      {},
      `${COUNT.format(job.recordsRead)} records read · ${COUNT.format(job.eventsPublished)} events published`,
    ),
    h(
      'td',
      {},
      `${COUNT.format(job.webhooksDelivered)} delivered · ${COUNT.format(job.webhooksDeadLettered)} dead-lettered · ${COUNT.format(job.webhooksLeft)} left`,
    ),
    h('td', {}, backfillStanding(job)),
  );
}

/** @param {{ id: string, error: string }} failed */
function failedRow({ id, error }) {
  return h(
    'tr',
    {},
    h('td', {}, h('code', {}, id)),
    h('td', { colspan: HEADERS.length - 1, class: 'error-text' }, error),
  );
}

/**
 * Renders the backfills page; returns a function that stops it.
 * @param {HTMLElement} main
 */
export function renderBackfills(main) {
  const shell = tableShell('Backfill jobs', HEADERS, true);
  const loadingRow = emptyRow(HEADERS.length, 'Loading backfill jobs…');
  shell.body.append(loadingRow);
  /** @type {string[]} jobs shown by id on this page, newest first */
  const shownById = [];
  /** @type {Map<string, any>} readings of jobs whose webhooks are all delivered: not read again */
  const finished = new Map();
  /** @type {HTMLElement} */
  const olderNote = h('p', { class: 'muted', hidden: true }, '');

  /** @param {string} id */
  async function reading(id) {
    const kept = finished.get(id);
    if (kept) return kept;
    try {
      const job = await api('GET', `backfill/${encodeURIComponent(id)}?streams=0`);
      if (job.deliveryDone) finished.set(id, job);
      return job;
    } catch (error) {
      return { id, error: /** @type {Error} */ (error).message };
    }
  }

  async function load() {
    const page = await api('GET', `backfill?limit=${JOBS_SHOWN}`).catch((error) => {
      failedPlaceholder(loadingRow, 'Backfill jobs', error);
      throw error;
    });
    /** @type {string[]} */
    const listedIds = page.jobs.map((/** @type {{ id: string }} */ job) => job.id);
    olderNote.hidden = page.nextCursor === undefined;
    olderNote.textContent = `The ${JOBS_SHOWN} newest jobs: show an older one by its id (change-bridge backfill list lists them all).`;
    const ids = [...new Set([...listedIds, ...shownById])];
    if (ids.length === 0) {
      replace(shell.body, emptyRow(HEADERS.length, 'No backfill yet: start one above'));
      return;
    }
    const jobs = await Promise.all(ids.map(reading));
    keyedChildren(
      shell.body,
      jobs,
      (job) => JSON.stringify(job),
      (job) => ('error' in job ? failedRow(job) : jobRow(job)),
    );
  }

  /** @param {Event} e an edit of a list field: its refusal, if any, is for the text before it */
  function clearProblem(e) {
    /** @type {HTMLInputElement} */ (e.target).setCustomValidity('');
  }

  /** @param {SubmitEvent} e */
  async function start(e) {
    e.preventDefault();
    const form = /** @type {HTMLFormElement} */ (e.target);
    const data = new FormData(form);
    const entities = formList(form, 'entities', 'Entity types');
    const connections = formList(form, 'connections', 'Connections');
    if (!entities || !connections) return;
    const emit = data.get('emit') === 'on';
    const which = `${entities.length ? entities.join(', ') : 'every polled entity type'} of ${connections.length ? connections.join(', ') : 'every enabled connection'}`;
    const confirmed = await confirmAction({
      title: 'Start a backfill?',
      message: `The streams of ${which} are read again from the history start, beside their live polls (a stream not synced yet starts its first sync again). ${emit ? 'Every entity read is published as a created event: your subscriptions get a webhook for each.' : 'Only changes are published, as the live polls would.'}`,
      action: 'Start backfill',
    });
    if (!confirmed) return;
    try {
      const job = await api('POST', 'backfill', {
        ...(entities.length ? { entities } : {}),
        ...(connections.length ? { connections } : {}),
        emit,
      });
      form.reset();
      say(`Backfill ${job.id} started`);
    } catch (error) {
      say(`Starting a backfill failed: ${/** @type {Error} */ (error).message}`, true);
    }
    await poller.now();
  }

  /** @param {SubmitEvent} e */
  async function show(e) {
    e.preventDefault();
    const form = /** @type {HTMLFormElement} */ (e.target);
    const field = /** @type {HTMLInputElement} */ (form.elements.namedItem('job'));
    const read = readBackfillIdField(field.value);
    // Refused here, in the CLI's words: the API would only answer 404 for a text of no job's shape.
    field.setCustomValidity(read.problem ?? '');
    if (read.problem !== undefined) {
      field.reportValidity();
      say(read.problem, true);
      return;
    }
    const id = read.id;
    if (!id) return;
    if (!shownById.includes(id)) shownById.unshift(id);
    form.reset();
    await poller.now();
  }

  replace(
    main,
    h(
      'form',
      { class: 'add-form', 'aria-labelledby': 'backfill-title', onsubmit: start },
      h('h2', { id: 'backfill-title' }, 'Start a backfill'),
      h('label', { for: 'bf-entities' }, 'Entity types'),
      h('input', {
        id: 'bf-entities',
        name: 'entities',
        placeholder: 'every polled one',
        oninput: clearProblem,
      }),
      h('label', { for: 'bf-connections' }, 'Connections'),
      h('input', {
        id: 'bf-connections',
        name: 'connections',
        placeholder: 'every enabled connection',
        oninput: clearProblem,
      }),
      h(
        'label',
        {},
        h('input', { type: 'checkbox', name: 'emit' }),
        ' Publish every entity as created',
      ),
      h('button', { type: 'submit' }, 'Start backfill'),
    ),
    h(
      'section',
      { 'aria-labelledby': 'backfills-title' },
      h('h2', { id: 'backfills-title' }, 'Backfill jobs'),
      h('p', { class: 'muted' }, 'Every job kept (7 days), newest first, wherever it was started.'),
      olderNote,
      h(
        'form',
        { class: 'filters', role: 'search', 'aria-label': 'Show a backfill job', onsubmit: show },
        h('label', { for: 'bf-job' }, 'Job id'),
        h('input', { id: 'bf-job', name: 'job', placeholder: 'bf_…', oninput: clearProblem }),
        h('button', { type: 'submit' }, 'Show job'),
      ),
      h('div', { class: 'scroll' }, shell.table),
    ),
  );
  const poller = every(load, BACKFILLS_POLL_MS);
  return poller.stop;
}
