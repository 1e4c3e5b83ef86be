import * as z from 'zod/mini';
import { reportRepeat, rule } from './checks.js';
import { InexactNumber } from './inexact.js';
import { describeValue, formatCount } from './messages.js';

/**
 * Identifiers typed `long` or `number` by the API (coreClientId, questionId, questionIndex, userIds,
 * skillIds, unitIds; docs/api.md, "Identifiers and addressing" and "Bot answer") are Java
 * longs, so every value up to 2^63 - 1 must survive exactly (docs/api.md, identifier rule;
 * docs/payloads.md, "Identifiers"). Inside
 * the program they are bigints: `parseJson` (json.ts) reads every JSON integer as one.
 *
 * The range starts at 0, not at -2^63: these are identifiers and an index, which the service hands
 * out as non-negative numbers, so a negative value can only be a mistake worth catching before it is
 * sent.
 *
 * A JavaScript number is not a bigint, and this schema rejects it: schemas carry no transforms (JSON
 * Schema generation refuses them), so a schema cannot turn one into the other. The `validate*`
 * functions (validate.ts) turn a number that is a safe integer into a bigint before they validate, so
 * a payload read by a loader that yields numbers (YAML, say) still passes, and comes out with bigints;
 * a number past 2^53 has already lost digits and is rejected with a message that says so.
 */
export const MAX_LONG = 9223372036854775807n;

const RANGE = `an integer from 0 to ${formatCount(MAX_LONG)}`;

function longMessage(input: unknown): string {
  if (input === undefined) return 'required';
  if (input instanceof InexactNumber) {
    // Written with a fraction or an exponent, it reads as another integer: sent, it would name another client.
    return `expected ${RANGE}, got ${describeValue(input)}; write the identifier in plain digits`;
  }
  let got = describeValue(input);
  if (typeof input === 'string' && /^-?\d+$/.test(input.trim())) got += ' (a string: write the number without quotes)';
  else if (typeof input === 'number' && Number.isInteger(input) && !Number.isSafeInteger(input)) {
    // A file's integer is read with every digit; a number past 2^53 here was written with an exponent or
    // a fraction (9.2e18), which is read as a floating-point number that keeps 15 to 17 digits.
    got +=
      ' (a number written with an exponent or a fraction, such as 9.2e18, keeps only 15 to 17 digits: write the identifier in plain digits)';
  }
  return `expected ${RANGE}, got ${got}`;
}

const longError = (issue: { input?: unknown }): string => longMessage(issue.input);

export const longSchema = z
  .bigint({ error: longError })
  .check(
    z.gte(0n, { error: longError }),
    z.lte(MAX_LONG, { error: longError }),
    z.meta({ description: `A Java long used as an identifier: ${RANGE}, sent as a JSON number with every digit.` }),
  );

export type Long = z.output<typeof longSchema>;

/**
 * A set of longs (userIds, skillIds, unitIds are typed `set<long>`: docs/api.md, answer rule 3). JSON has no
 * sets, so the set is an array, and a repeated value is an error naming it and where it first
 * appeared: the service would keep one, and a repeat is usually a typo for another identifier.
 */
export function longSetSchema(description: string) {
  return z.array(longSchema).check(
    rule(
      (value, ctx) => {
        if (!Array.isArray(value)) return;
        const seen = new Map<bigint, number>();
        value.forEach((item: unknown, index) => {
          if (typeof item !== 'bigint') return;
          const first = seen.get(item);
          if (first === undefined) seen.set(item, index);
          else reportRepeat(ctx, [index], [first], `${item} is repeated; first at {first}`, item);
        });
      },
      (payload) => Array.isArray(payload.value),
    ),
    z.meta({ description, uniqueItems: true }),
  );
}

/**
 * Renders a long as a JSON Schema integer, for `z.toJSONSchema(schema, { override })`. JSON Schema
 * has no bigint, so without it zod writes an unconstrained `{}` (with `unrepresentable: 'any'`).
 * The upper bound is given as `format: "int64"` rather than `maximum`: zod writes the schema through
 * `JSON.stringify`, which refuses a bigint, and 2^63 - 1 as a JavaScript number rounds up to 2^63,
 * one past the limit.
 */
export function longJsonSchemaOverride(ctx: { zodSchema: z.core.$ZodType; jsonSchema: Record<string, unknown> }): void {
  if (ctx.zodSchema._zod.def.type !== 'bigint') return;
  ctx.jsonSchema.type = 'integer';
  ctx.jsonSchema.format = 'int64';
  ctx.jsonSchema.minimum = 0;
}
