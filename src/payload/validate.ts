import * as z from 'zod/mini';
import { MAX_LISTED_PROBLEMS, moreProblems, type Problem } from '../errors.js';
import { isRecord } from './checks.js';
import {
  comparePaths,
  formatPath,
  payloadErrorMap,
  unknownFieldMessage,
  type Path,
  type PathSegment,
  type RawProblem,
} from './messages.js';

/**
 * The one way the rest of the program validates a payload: every problem at once, each with its
 * path and a message that names the rule and the value, plus the warnings (advice from the API that
 * does not make a request invalid). No input makes these functions throw.
 *
 * Each payload's validator lives beside its schema (validateReply in reply.ts, validateGreeting in
 * greeting.ts, validateReason in reason.ts), and this module imports none of them: a command that
 * imports its own payload's module builds only that payload's schemas (`core reply` never builds the
 * greeting's or the reason's). index.ts gathers them all for the rest of the program.
 */
export type Validation<T> = { ok: true; value: T; warnings: Problem[] } | { ok: false; problems: Problem[]; warnings: Problem[] };

type AnySchema = z.core.$ZodType;
type Def = { type: string; [key: string]: unknown };

function defOf(schema: AnySchema): Def {
  return schema._zod.def as unknown as Def;
}

/** Looks through wrappers that do not change a value's shape: optional, nullable, default and the like. */
function unwrap(schema: AnySchema): AnySchema {
  let current = schema;
  for (let i = 0; i < 32; i++) {
    const def = defOf(current);
    if (['optional', 'nullable', 'default', 'prefault', 'nonoptional', 'readonly', 'catch'].includes(def.type)) {
      current = def.innerType as AnySchema;
    } else if (def.type === 'pipe') {
      current = def.in as AnySchema;
    } else {
      return current;
    }
  }
  return current;
}

/**
 * The schema of one step into a value: a field of an object, an item of an array, a value of a record;
 * through a union, the first of its forms that has such a step.
 */
export function childOf(schema: AnySchema, segment: PathSegment): AnySchema | undefined {
  const def = defOf(unwrap(schema));
  if (def.type === 'union') {
    for (const option of def.options as AnySchema[]) {
      const child = childOf(option, segment);
      if (child !== undefined) return child;
    }
    return undefined;
  }
  if (def.type === 'object') {
    const shape = def.shape as Record<string, AnySchema>;
    const known = typeof segment === 'string' && Object.prototype.hasOwnProperty.call(shape, segment);
    return known ? shape[segment] : undefined;
  }
  if (def.type === 'array') return def.element as AnySchema;
  if (def.type === 'record') return def.valueType as AnySchema;
  return undefined;
}

/** The field names the object at `path` knows, for suggesting one in place of an unknown field. */
export function knownFields(schema: AnySchema, path: Path): string[] {
  let current: AnySchema | undefined = schema;
  for (const segment of path) {
    current = current && childOf(current, segment);
    if (!current) return [];
  }
  const def = defOf(unwrap(current));
  if (def.type === 'union') {
    const object = (def.options as AnySchema[]).map((option) => defOf(unwrap(option))).find((option) => option.type === 'object');
    return object ? Object.keys(object.shape as object) : [];
  }
  return def.type === 'object' ? Object.keys(def.shape as object) : [];
}

/** Whether a schema has a long anywhere in it, per schema: a schema without one (a reason) needs no `normalizeLongs`. */
const holdsLongs = new WeakMap<AnySchema, boolean>();

function hasLong(schema: AnySchema, depth = 0): boolean {
  const known = holdsLongs.get(schema);
  if (known !== undefined) return known;
  // Schemas are trees a few levels deep; the bound keeps a recursive one (none today) from looping.
  if (depth > 32) return true;
  const def = defOf(unwrap(schema));
  let found: boolean;
  if (def.type === 'bigint') found = true;
  else if (def.type === 'array') found = hasLong(def.element as AnySchema, depth + 1);
  else if (def.type === 'object') found = Object.values(def.shape as Record<string, AnySchema>).some((field) => hasLong(field, depth + 1));
  // normalizeWithin goes into objects and arrays only: a long in a union or a record is left to the schema.
  else found = false;
  holdsLongs.set(schema, found);
  return found;
}

/**
 * Turns a JavaScript number that is a safe integer into a bigint wherever the schema expects a long
 * (see long.ts for why the schemas themselves accept only bigints). The input is not changed: the
 * objects and arrays on the way to a converted number are copied.
 */
function normalizeLongs(schema: AnySchema, value: unknown): unknown {
  if (!hasLong(schema)) return value;
  return normalizeWithin(schema, value);
}

function normalizeWithin(schema: AnySchema, value: unknown): unknown {
  const inner = unwrap(schema);
  const def = defOf(inner);
  if (def.type === 'bigint') return typeof value === 'number' && Number.isSafeInteger(value) ? BigInt(value) : value;
  if (def.type === 'array' && Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item: unknown, index) => {
      const next = normalizeLongs(def.element as AnySchema, item);
      if (next !== item) (copy ??= [...value])[index] = next;
    });
    return copy ?? value;
  }
  if (def.type === 'object' && isRecord(value)) {
    let copy: Record<string, unknown> | undefined;
    for (const [key, field] of Object.entries(def.shape as Record<string, AnySchema>)) {
      if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
      const item = value[key];
      const next = normalizeLongs(field, item);
      if (next !== item) (copy ??= { ...value })[key] = next;
    }
    return copy ?? value;
  }
  return value;
}

function toPath(path: readonly PropertyKey[]): PathSegment[] {
  return path.map((segment) => (typeof segment === 'number' ? segment : String(segment)));
}

/** A problem whose message is made only if it is listed: the suggestion for an unknown field costs a comparison with every known one. */
type PendingProblem = { path: Path; message: string | (() => string) };

/**
 * Sorts problems by path (indexes as numbers), drops exact repeats, writes the paths out, and lists
 * at most MAX_LISTED_PROBLEMS of them, then one entry counting the rest (`… and 79,900 more`). The
 * cost per problem is a sort and a path written out; a message is made only for a problem listed.
 * Problems at one path keep the order they were found in: Array.prototype.sort is stable.
 */
export function finishProblems(raw: readonly (RawProblem | PendingProblem)[], unlisted = 0): Problem[] {
  const sorted = raw.map((problem, order) => ({ problem, order })).sort((a, b) => comparePaths(a.problem.path, b.problem.path));
  const out: Problem[] = [];
  const seen = new Set<string>();
  let rest = unlisted;
  for (const { problem, order } of sorted) {
    const path = formatPath(problem.path);
    // A pending message is an unknown field's, never repeated (a key is in its object once); a long
    // key is cut in its path, so two of them may be written alike: the order tells them apart.
    const key = typeof problem.message === 'string' ? `${path}\u0000${problem.message}` : `${path}\u0000${order}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (out.length === MAX_LISTED_PROBLEMS) rest += 1;
    else out.push({ path, message: typeof problem.message === 'string' ? problem.message : problem.message() });
  }
  return rest > 0 ? [...out, moreProblems(rest)] : out;
}

/**
 * The problems of a failed parse. zod reports unknown fields as one issue per object; here each
 * unknown field is its own problem at its own path, with a suggestion (the first ones of an object,
 * in the order the object holds them; the rest counted). A repeated value's message
 * names the full path of the first one, which the check could not know (see `reportRepeat`).
 */
export function toProblems(schema: AnySchema, issues: readonly z.core.$ZodIssue[]): Problem[] {
  const raw: PendingProblem[] = [];
  // Unknown fields past the first MAX_LISTED_PROBLEMS of an object cannot all be listed: they are
  // counted, not sorted, so an answer of 80,000 unknown fields costs a count for most of them.
  let unlisted = 0;
  for (const issue of issues) {
    const path = toPath(issue.path);
    switch (issue.code) {
      case 'unrecognized_keys': {
        let known: string[] | undefined;
        const message = (key: string) => () => unknownFieldMessage(key, (known ??= knownFields(schema, path)));
        const listed = Math.min(issue.keys.length, MAX_LISTED_PROBLEMS);
        for (let i = 0; i < listed; i++) raw.push({ path: [...path, issue.keys[i]!], message: message(issue.keys[i]!) });
        unlisted += issue.keys.length - listed;
        break;
      }
      case 'invalid_key': {
        const inner = issue.issues[0]?.message ?? 'invalid';
        raw.push({ path, message: `the key ${inner}` });
        break;
      }
      case 'custom': {
        const params = issue.params as { template?: unknown; ownPath?: unknown; firstPath?: unknown } | undefined;
        if (typeof params?.template === 'string' && Array.isArray(params.ownPath) && Array.isArray(params.firstPath)) {
          const prefix = path.slice(0, path.length - params.ownPath.length);
          const first = formatPath([...prefix, ...(params.firstPath as PathSegment[])]);
          raw.push({ path, message: params.template.replace('{first}', first) });
        } else {
          raw.push({ path, message: issue.message });
        }
        break;
      }
      default:
        raw.push({ path, message: issue.message });
    }
  }
  return finishProblems(raw, unlisted);
}

function describeError(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return 'unknown error';
  }
}

export function validateWith<T>(schema: z.ZodMiniType<T>, input: unknown, warn?: (value: unknown) => RawProblem[]): Validation<T> {
  try {
    const value = normalizeLongs(schema, input);
    const warnings = warn ? finishProblems(warn(value)) : [];
    const result = schema.safeParse(value, { error: payloadErrorMap });
    if (result.success) return { ok: true, value: result.data, warnings };
    return { ok: false, problems: toProblems(schema, result.error.issues), warnings };
  } catch (error) {
    // The schemas are written not to throw on any JSON value; this is for values no JSON holds
    // (a getter that throws, a revoked proxy), so that a caller still gets problems, not a crash.
    const problem = { path: '', message: `could not be validated: ${describeError(error)}` };
    return { ok: false, problems: [problem], warnings: [] };
  }
}

/**
 * Validates one value against one schema, for a prompt that checks each answer as it is typed (the
 * composer uses the very field schemas of the payload, such as `quickReplySchema.shape.text`).
 * Returns the first problem's message (prefixed with its path when it is inside the value), or true.
 */
export function validateField(schema: z.ZodMiniType, value: unknown): string | true {
  const result = validateWith(schema, value);
  if (result.ok) return true;
  // A failed validation has a problem: toProblems writes one for each of zod's issues, validateWith's catch one.
  const first = result.problems[0]!;
  return first.path === '' ? first.message : `${first.path}: ${first.message}`;
}

/**
 * The character limit of a string field (in UTF-16 code units, as the service counts), or undefined
 * for a field with no limit or that is not a string. Reads the bound the schema's own check carries,
 * so the composer shows the limit the validation enforces.
 */
export function maxLengthOf(schema: z.ZodMiniType): number | undefined {
  const inner = unwrap(schema);
  if (defOf(inner).type !== 'string') return undefined;
  const meta = z.globalRegistry.get(inner);
  if (typeof meta?.maxLength === 'number') return meta.maxLength;
  let max: number | undefined;
  for (const check of inner._zod.def.checks ?? []) {
    const def = check._zod.def as { check: string; maximum?: unknown };
    if (def.check === 'max_length' && typeof def.maximum === 'number') max = Math.min(max ?? Infinity, def.maximum);
  }
  return max;
}
