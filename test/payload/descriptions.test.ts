import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { greetingSchema, longJsonSchemaOverride, reasonSchema, replySchema } from '../../src/payload/index.js';

/**
 * The JSON Schema of each payload (`core schema`, docs/schemas/) describes every field, and every
 * form of a field that has several: the descriptions are the schema's documentation for an editor
 * or a generator, and each is written beside the field's rules in src/payload/. (The whole text is
 * compared with docs/schemas/ by test/schema/json-schema.test.ts; this file checks the payloads' own
 * words without reading docs/.)
 */
type Node = {
  description?: unknown;
  properties?: Record<string, Node>;
  items?: Node;
  additionalProperties?: Node | boolean;
  anyOf?: Node[];
  [key: string]: unknown;
};

/** The JSON Schema as src/schema/json-schema.ts writes it (without the parts it adds around). */
function jsonSchemaOf(schema: z.core.$ZodType): Node {
  return z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: (ctx) => (ctx.zodSchema._zod.def.type === 'bigint' ? {} : 'throw'),
    override: longJsonSchemaOverride,
  }) as Node;
}

/** Every schema node a user writes a value for, with a readable path. */
function nodes(schema: Node, path = ''): [string, Node][] {
  const out: [string, Node][] = [[path || '(root)', schema]];
  for (const [key, child] of Object.entries(schema.properties ?? {})) out.push(...nodes(child, `${path}.${key}`));
  if (schema.items) out.push(...nodes(schema.items, `${path}[]`));
  if (typeof schema.additionalProperties === 'object') out.push(...nodes(schema.additionalProperties, `${path}.*`));
  schema.anyOf?.forEach((branch, index) => out.push(...nodes(branch, `${path}|${index}`)));
  return out;
}

describe('the JSON Schema of each payload', () => {
  it.each([
    ['reply', replySchema],
    ['greet', greetingSchema],
    ['reason', reasonSchema],
  ] as const)('%s: describes every field in words', (_, schema) => {
    const undescribed = nodes(jsonSchemaOf(schema))
      .filter(([, node]) => typeof node.description !== 'string' || node.description.trim().length < 8)
      .map(([path]) => path);
    expect(undescribed).toEqual([]);
  });
});
