import * as z from 'zod/mini';
import { isRecord } from './json.js';
import { formatCount, formatPath, type Path } from './messages.js';

/**
 * The checks every payload schema is built from. They are written here rather than taken from
 * zod's `minLength` / `maxLength` for two reasons:
 *
 * - zod counts a string's length in Unicode code points, while the service is written in Java and
 *   counts UTF-16 code units (`String.length()`): an emoji is one code point but two units, so a text
 *   of 4,000 emoji passes zod's `maxLength(4000)` and is 8,000 characters to the service.
 * - zod's length checks run even after a value had the wrong type (a number where a string belongs
 *   gets "too short" on top of "expected a string"). Each check here runs only on a value of its own
 *   type, so a field reports one problem, not a cascade.
 *
 * The bounds are also written into the schema's metadata (`minLength`, `maxLength`, `minItems`,
 * `maxItems`), which is where `z.toJSONSchema` and `maxLengthOf` read them. JSON Schema counts code
 * points, so the descriptions say that the service counts UTF-16 units.
 */

type Check = z.core.$ZodCheck<unknown>;
type Ctx = z.core.$RefinementCtx<unknown>;
type Payload = z.core.ParsePayload;

const whenString = (payload: Payload): boolean => typeof payload.value === 'string';
const whenArray = (payload: Payload): boolean => Array.isArray(payload.value);
/** Cross-field checks run whenever the value is an object, even when some field in it is invalid, so
 * that one run reports every problem (docs/payloads.md: every problem is listed at once). */
const whenObject = (payload: Payload): boolean => isRecord(payload.value);

export { isRecord };

/** Whether an object carries a field: a key whose value is `undefined` counts as absent, as in JSON. */
export function has(value: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(value, key) && value[key] !== undefined;
}

/** A check on any value, run only when `when` says so (default: when the value is an object). */
export function rule(fn: (value: unknown, ctx: Ctx) => void, when: (payload: Payload) => boolean = whenObject): Check {
  return z.superRefine<unknown>(fn, { when });
}

/** Reports a problem at `path`, relative to the schema the check is attached to. */
export function report(ctx: Ctx, path: Path, message: string, input?: unknown): void {
  ctx.addIssue({ code: 'custom', path: [...path], message, input, continue: true });
}

/**
 * Reports a value that repeats an earlier one. The message names where the first one is; since a
 * check knows paths only relative to its own schema, the full path is filled in when problems are
 * collected (see `toProblems`), which replaces `{first}` in the template.
 */
export function reportRepeat(ctx: Ctx, ownPath: Path, firstPath: Path, template: string, input: unknown): void {
  ctx.addIssue({
    code: 'custom',
    path: [...ownPath],
    message: template.replace('{first}', formatPath(firstPath)),
    params: { template, ownPath: [...ownPath], firstPath: [...firstPath] },
    input,
    continue: true,
  });
}

/** No empty string where a value is given: the API gives an empty value no meaning anywhere (docs/api.md, gap 20). */
export function nonEmpty(): Check {
  return rule((value, ctx) => {
    if (value === '') {
      ctx.addIssue({
        code: 'too_small',
        origin: 'string',
        minimum: 1,
        inclusive: true,
        input: value,
        message: 'must not be empty',
        continue: true,
      });
    }
  }, whenString);
}

/** At most `limit` UTF-16 code units, as the service's Java strings count them. */
export function maxUnits(limit: number, note?: string): Check {
  return rule((value, ctx) => {
    if (typeof value === 'string' && value.length > limit) {
      ctx.addIssue({
        code: 'too_big',
        origin: 'string',
        maximum: limit,
        inclusive: true,
        input: value,
        message: `${formatCount(value.length)} characters, limit ${formatCount(limit)}${note ? ` (${note})` : ''}`,
        continue: true,
      });
    }
  }, whenString);
}

/** At most `limit` items; `noun` names them in the message (`12 quick replies, limit 10`). */
export function maxItems(limit: number, noun: string, note?: string): Check {
  return rule((value, ctx) => {
    if (Array.isArray(value) && value.length > limit) {
      ctx.addIssue({
        code: 'too_big',
        origin: 'array',
        maximum: limit,
        inclusive: true,
        input: value,
        message: `${formatCount(value.length)} ${noun}, limit ${formatCount(limit)}${note ? ` (${note})` : ''}`,
        continue: true,
      });
    }
  }, whenArray);
}

/** At least one item. */
export function nonEmptyArray(): Check {
  return rule((value, ctx) => {
    if (Array.isArray(value) && value.length === 0) {
      ctx.addIssue({
        code: 'too_small',
        origin: 'array',
        minimum: 1,
        inclusive: true,
        input: value,
        message: 'must hold at least one item',
        continue: true,
      });
    }
  }, whenArray);
}

/** A string field that, when present, must be non-empty and at most `max` UTF-16 units long. */
export function text(description: string, max?: number, note?: string): z.ZodMiniString<string> {
  const checks: Check[] = [nonEmpty()];
  if (max !== undefined) checks.push(maxUnits(max, note));
  checks.push(z.meta(max === undefined ? { description, minLength: 1 } : { description, minLength: 1, maxLength: max }));
  return z.string().check(...checks);
}

/**
 * An absolute http or https URL, as the text that is sent: the scheme and its two slashes as written
 * (either case), no control character anywhere and no space at either end. The URL parser forgives
 * all of these (it drops tabs and newlines, reads `http:example.com` and `\u0001https://...` as
 * http URLs), but the service is sent the text, not what the parser made of it.
 *
 * This is the JSON Schema's `pattern` of the field too; the rest (that the text parses as a URL
 * with a host) is the parser's to say, which a pattern cannot.
 */
export const HTTP_URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://[^\\u0000-\\u001F\\u007F]*[^\\s\\u0000-\\u001F\\u007F]$';
const HTTP_URL = new RegExp(HTTP_URL_PATTERN, 'u');

/**
 * The checks of an absolute http or https URL (see HTTP_URL_PATTERN), with their JSON Schema. The
 * service fetches or links it, so a relative path is useless.
 */
export function httpUrl(): Check[] {
  return [
    rule((value, ctx) => {
      if (typeof value !== 'string' || value === '') return;
      if (!isHttpUrl(value)) {
        report(ctx, [], `expected an absolute http or https URL, got ${JSON.stringify(value)}`, value);
      }
    }, whenString),
    z.meta({ format: 'uri', pattern: HTTP_URL_PATTERN }),
  ];
}

function isHttpUrl(value: string): boolean {
  if (!HTTP_URL.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
