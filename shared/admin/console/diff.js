/**
 * A readable diff of two records: one row per leaf that differs, by path
 * (`Address.City`, `Emails[1]`). Pure: no DOM, so it runs under Node tests too.
 */

/**
 * @typedef {{ path: string, kind: 'added' | 'removed' | 'changed', before?: unknown, after?: unknown }} DiffRow
 */

/** @param {unknown} value */
function isContainer(value) {
  return typeof value === 'object' && value !== null;
}

/**
 * @param {string} base
 * @param {string | number} key
 * @param {boolean} inArray
 */
function join(base, key, inArray) {
  if (inArray) return `${base}[${key}]`;
  return base === '' ? String(key) : `${base}.${key}`;
}

/**
 * @param {unknown} before
 * @param {unknown} after
 * @param {string} path
 * @param {DiffRow[]} rows
 */
function walk(before, after, path, rows) {
  if (before === undefined && after === undefined) return;
  if (before === undefined) {
    rows.push({ path, kind: 'added', after });
    return;
  }
  if (after === undefined) {
    rows.push({ path, kind: 'removed', before });
    return;
  }
  const bothArrays = Array.isArray(before) && Array.isArray(after);
  const bothObjects =
    isContainer(before) && isContainer(after) && !Array.isArray(before) && !Array.isArray(after);
  if (bothArrays || bothObjects) {
    const b = /** @type {Record<string, unknown>} */ (before);
    const a = /** @type {Record<string, unknown>} */ (after);
    const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])];
    if (!bothArrays) keys.sort();
    for (const key of keys) walk(b[key], a[key], join(path, key, bothArrays), rows);
    return;
  }
  if (JSON.stringify(before) !== JSON.stringify(after)) {
    rows.push({ path, kind: 'changed', before, after });
  }
}

/**
 * The differences from `previous` to `current`, in path order. A null or absent side
 * (a created or deleted record) makes every field of the other side added or removed.
 * @param {unknown} previous
 * @param {unknown} current
 * @returns {DiffRow[]}
 * @example diffRecords({ Email: 'a@x' }, { Email: 'b@x' }) // [{ path: 'Email', kind: 'changed', before: 'a@x', after: 'b@x' }]
 */
export function diffRecords(previous, current) {
  /** @type {DiffRow[]} */
  const rows = [];
  walk(previous ?? {}, current ?? {}, '', rows);
  return rows;
}

/**
 * A value as one line of text: strings as they are, the rest as JSON.
 * @param {unknown} value
 */
export function showValue(value) {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}
