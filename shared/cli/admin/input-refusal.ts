import { z } from 'zod';
import { firstInputIssue } from '../../admin/input-issue.ts';
import { EMPTY_ITEM_MESSAGE, splitCommaList } from '../../comma-list.ts';
import { fieldIssues, formatIssuePath, type ValidationError } from '../../errors.ts';
import { withPlainMessages } from '../../plain-message.ts';

/*
 * How the CLI words a refusal of its input, whether its own check or the admin API's 400 found
 * it: led by the flag the user typed, named once, then what the flag takes
 * (`--initial-sync: must be baseline or emit`), never zod's own wording (plain-message.ts).
 */

/** The flag of each top-level input field a command sets from one: `{ initialSync: '--initial-sync' }`. */
export type FieldFlags = Readonly<Record<string, string>>;

/** The longest item of a list flag a refusal repeats; a longer one is cut, `…` where cut. */
const ITEM_SHOWN_MAX = 40;

/** A field as the API names it: its top-level name, an item's index, and any deeper path. */
const FIELD = /^([^[.]*)(?:\[(\d+)\])?(.*)$/;

/** Item `index` of the list field `name` of `input`, given as a list or comma-separated text. */
function itemOf(input: unknown, name: string, index: number): string | undefined {
  if (typeof input !== 'object' || input === null || !Object.hasOwn(input, name)) return undefined;
  const value = (input as Record<string, unknown>)[name];
  const items = typeof value === 'string' ? splitCommaList(value) : value;
  const item = Array.isArray(items) ? items[index] : undefined;
  return typeof item === 'string' ? item : undefined;
}

/**
 * A refusal of `field` as the CLI says it: led by the flag that set it, named once, with the
 * refused item of a list flag (taken from `input`, the query or body the command built)
 * unless the message starts with it; a field no flag sets is named as the API names it.
 * Pure.
 * @example refusalText('initialSync', 'must be baseline or emit', { initialSync: '--initial-sync' }) // '--initial-sync: must be baseline or emit'
 * @example refusalText('events[1]', 'must be an event type …', { events: '--events' }, { events: 'customer.*,nope' }) // '--events: nope: must be an event type …'
 * @example refusalText('id', 'must not be empty') // 'id: must not be empty'
 */
export function refusalText(
  field: string,
  message: string,
  flags: FieldFlags = {},
  input?: unknown,
): string {
  const [, name = '', index] = FIELD.exec(field) ?? [];
  const flag = Object.hasOwn(flags, name) ? flags[name] : undefined;
  if (flag === undefined) return `${field}: ${message}`;
  // A deeper path (portfolioScope.chainIds) is the API's structure, not what the user typed.
  if (index === undefined) return `${flag}: ${message}`;
  const item = itemOf(input, name, Number(index));
  if (item !== undefined && (message.startsWith(`${item}:`) || message.startsWith(`${item} `))) {
    return `${flag}: ${message}`;
  }
  // An empty item (`a,,b`) has no text to repeat: named by its place.
  const shown =
    item === undefined || item === ''
      ? `item ${Number(index) + 1}`
      : item.length > ITEM_SHOWN_MAX
        ? `${item.slice(0, ITEM_SHOWN_MAX - 1)}…`
        : item;
  return `${flag}: ${shown}: ${message}`;
}

/**
 * The first refusal of `error` (invalid route input, as the admin API's 400 would name it) as
 * the CLI says it ({@link refusalText}, plainMessage in plain-message.ts); an empty item of a
 * list is named with every other empty item of that list, in order
 * (`--events: item 1: is empty …; item 3: is empty …`). Pure.
 * @example inputRefusalText(AddConnectionInputSchema.safeParse(body).error!, 'body', { initialSync: '--initial-sync' }, body) // '--initial-sync: must be baseline or emit'
 */
export function inputRefusalText(
  error: z.ZodError,
  location: string,
  flags: FieldFlags = {},
  input?: unknown,
): string {
  const plain = withPlainMessages(error);
  const { field, message } = firstInputIssue(plain, location);
  const first = refusalText(field, message, flags, input);
  if (message !== EMPTY_ITEM_MESSAGE) return first;
  // Every empty item of the list is named, in order, as a list variable's refusal names them.
  const [, name = ''] = FIELD.exec(field) ?? [];
  const lead = Object.hasOwn(flags, name) ? `${flags[name]}: ` : '';
  const others = plain.issues
    .filter((issue) => issue.message === EMPTY_ITEM_MESSAGE && issue.path[0] === name)
    .map((issue) => formatIssuePath(issue.path))
    .filter((other) => other !== field)
    .map((other) => refusalText(other, EMPTY_ITEM_MESSAGE, flags, input).slice(lead.length));
  return [first, ...others].join('; ');
}

/**
 * The admin API's 400 answer (`error`, naming `field`) as the CLI says it: the field's name
 * (and what leads it: `backfill is invalid: `) left out of the message, so the flag or field
 * is named once ({@link refusalText}). Pure.
 * @example answeredRefusalText('backfill is invalid: connections[0]: other is no enabled connection', 'connections[0]', { connections: '--connection' }) // '--connection: other is no enabled connection'
 */
export function answeredRefusalText(
  answer: string,
  field: string,
  flags: FieldFlags = {},
  input?: unknown,
): string {
  const lead = `${field}: `;
  const inside = answer.indexOf(`: ${lead}`);
  const message = answer.startsWith(lead)
    ? answer.slice(lead.length)
    : inside >= 0
      ? answer.slice(inside + 2 + lead.length)
      : answer;
  return refusalText(field, message, flags, input);
}

/** An issue line of a ValidationError (`[0]: x:1: needs …`): its path, up to the first `: `. */
const ISSUE_PATH = /^\S*?: /;

/**
 * A {@link ValidationError} raised for the value of one flag (`--portfolio-scope`, whose items
 * it names by index) as the CLI says it: the flag once, then each issue's message, which names
 * the item itself, in plain words. Pure.
 * @example flagValidationText('--portfolio-scope', error) // '--portfolio-scope: x:1: needs the chain:<uuid> or enterprise:<uuid> prefix'
 */
export function flagValidationText(flag: string, error: ValidationError): string {
  const messages =
    error.cause instanceof z.ZodError
      ? fieldIssues(withPlainMessages(error.cause)).map((issue) => issue.message)
      : error.issues.map((line) => line.replace(ISSUE_PATH, ''));
  return `${flag}: ${messages.join('; ')}`;
}

/**
 * A 409's message whose list of the request's `fields` (as the API names them, `(interval,
 * accessToken differ)`) names the flags that set them instead, for a command that took them
 * from flags; a field with no flag keeps its name, and a message without that list is
 * unchanged. Pure.
 * @example conflictText('connection a exists already, taken by a different definition (interval differs): …', ['interval'], { interval: '--interval' }) // '… (--interval differs): …'
 */
export function conflictText(
  message: string,
  fields: readonly string[],
  flags: FieldFlags = {},
): string {
  if (fields.length === 0) return message;
  const named = fields.map((field) => (Object.hasOwn(flags, field) ? flags[field] : field));
  return message.replace(`(${fields.join(', ')} `, `(${named.join(', ')} `);
}
