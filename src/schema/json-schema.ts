import * as z from 'zod/mini';
import { configSchema } from '../config/schema.js';
import { agentsFileSchema } from '../payload/agents.js';
import { seedFileSchema } from '../payload/seed.js';
import { greetingSchema, longJsonSchemaOverride, reasonSchema, receivedAtSchema, replySchema } from '../payload/index.js';
import { messageDeliverySchema } from '../payload/message.js';
import { receivedAtInFile, SCHEMA_KEY, SCHEMA_KEY_JSON_SCHEMA } from '../input/fields.js';
import { testFileSchema } from '../testing/schema.js';
import { CONFIG_NOTES } from './config-notes.js';
import type { SchemaKind } from './kinds.js';

/**
 * JSON Schemas (draft 2020-12) of the three request bodies, the config file and the test file of
 * `core test`, generated from
 * the zod schemas that validate them (one source of truth per rule: docs/architecture.md, "Rules of
 * the road"). Pure: no I/O, so `core schema`, the docs generator and the tests all call the same
 * function.
 *
 * The rules that tie fields together are written as JSON Schema beside their checks (`required`,
 * `dependentRequired`, `dependentSchemas`, `not`... in the zod schemas' metadata). What a JSON Schema
 * cannot say (uniqueness across sections or without case, a total across sections, lengths in
 * UTF-16 units, 29 February of a year that is not a leap year) is written into the `description` of
 * the payload schemas in src/payload, and of the config file in config-notes.ts.
 */

export { SCHEMA_KINDS, isSchemaKind, type SchemaKind } from './kinds.js';

export type JsonSchema = Record<string, unknown>;

/**
 * What a schema describes: `file`, a payload file of core (what `core schema` prints and editors
 * read), which may also carry `$schema` and `receivedAt: now`; `body`, the request body the API
 * takes (the OpenAPI document), which may not.
 */
export type SchemaForm = 'file' | 'body';

/**
 * Where each schema is published: the npm package ships docs/schemas/, so the unversioned unpkg URL
 * serves the latest release's schema to editors that have no local copy (docs/recipes.md, "Check
 * payloads in your editor").
 */
export function schemaId(kind: SchemaKind): string {
  return `https://unpkg.com/core-cli/docs/schemas/${kind}.schema.json`;
}

const SOURCES: Record<SchemaKind, { schema: z.core.$ZodType; title: string }> = {
  reply: { schema: replySchema, title: 'Bot answer: the request body of POST /api/v1/chatbot (core reply)' },
  greet: { schema: greetingSchema, title: 'Greeting: the request body of POST /api/v1/chatbot/greet (core greet)' },
  reason: { schema: reasonSchema, title: 'Inactivity reason: the request body of PUT /api/v1/inactivity/reasons (core reason update)' },
  config: { schema: configSchema, title: 'The configuration file of core (.corerc, ~/.config/core/config.yaml)' },
  agents: { schema: agentsFileSchema, title: 'The agents of core sandbox --agents FILE: the agents every tenant starts with' },
  seed: {
    schema: seedFileSchema,
    title: 'A seed of core sandbox (--seed FILE, core sandbox seed FILE): tenants, clients, threads, reasons and agents',
  },
  test: {
    schema: testFileSchema,
    title: 'A conversation test of core test: the steps of a conversation with a bot, and the answers expected',
  },
  message: {
    schema: messageDeliverySchema,
    title: "MESSAGE webhook: the body the platform POSTs to the bot for a customer message (the sandbox's format)",
  },
};

/**
 * The JSON Schema of one payload or of the config file, with `$schema`, `$id` and `title` first.
 *
 * - `io: 'input'`: the schema of what a user writes (no schema here has defaults or transforms
 *   today; should one gain a default, the input side is still the one to document).
 * - Longs are bigints inside the program, which JSON Schema cannot represent: `longJsonSchemaOverride`
 *   writes them as non-negative int64 integers. Any other unrepresentable type throws, so that a
 *   change to the zod schemas cannot silently turn a field into "anything".
 * - `form` (see SchemaForm): the file's additions are stated beside the code that handles them, in
 *   src/input/fields.ts.
 */
export function jsonSchemaOf(kind: SchemaKind, form: SchemaForm = 'file'): JsonSchema {
  const source = SOURCES[kind];
  const generated = z.toJSONSchema(source.schema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: (ctx) => (ctx.zodSchema._zod.def.type === 'bigint' ? {} : 'throw'),
    override: (ctx) => {
      longJsonSchemaOverride(ctx);
      if (form === 'file' && ctx.zodSchema === receivedAtSchema) receivedAtInFile(ctx.jsonSchema);
    },
  }) as JsonSchema;
  const body = structuredClone(generated);
  delete body.$schema;
  if (kind === 'config') applyNotes(body, CONFIG_NOTES);
  // A delivery is what the platform sends, never a file core reads: no `$schema` key for editors.
  else if (form === 'file' && kind !== 'message') allowEditorKey(body);
  const { description, ...rest } = body;
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: schemaId(kind),
    title: source.title,
    ...(description === undefined ? {} : { description }),
    ...rest,
  };
}

/**
 * A payload file may name its JSON Schema with `$schema` for editors (docs/payloads.md, "Payload
 * files"); core drops the key before anything is checked or sent, so the schema editors read lets it.
 * The API's own description of the body (the `body` form) leaves it out.
 */
function allowEditorKey(schema: JsonSchema): void {
  const properties = schema.properties as Record<string, unknown> | undefined;
  if (properties === undefined) return;
  schema.properties = { [SCHEMA_KEY]: { ...SCHEMA_KEY_JSON_SCHEMA }, ...properties };
}

/**
 * Writes descriptions into a generated schema by path. A path names properties by key, the values of
 * a mapping by `*`, array items by `[]` and the branches of an `anyOf` by `|0`, `|1`...: for example
 * `profiles.*.token|1.env`. A path that finds nothing throws, so a renamed config key cannot leave
 * its description behind unnoticed.
 */
export function applyNotes(schema: JsonSchema, notes: Readonly<Record<string, string>>): void {
  for (const [path, description] of Object.entries(notes)) {
    const node = nodeAt(schema, path);
    if (node === undefined) throw new Error(`config-notes: no schema at ${JSON.stringify(path)}`);
    node.description = description;
  }
}

function nodeAt(schema: JsonSchema, path: string): JsonSchema | undefined {
  let node: JsonSchema | undefined = schema;
  const steps = path === '' ? [] : path.split(/\.|(?=\|)|(?=\[\])/).filter((step) => step !== '');
  for (const step of steps) {
    if (node === undefined) return undefined;
    if (step === '*') node = asSchema(node.additionalProperties);
    else if (step === '[]') node = asSchema(node.items);
    else if (step.startsWith('|')) node = asSchema((node.anyOf as unknown[] | undefined)?.[Number(step.slice(1))]);
    else node = asSchema((node.properties as Record<string, unknown> | undefined)?.[step]);
  }
  return node;
}

function asSchema(value: unknown): JsonSchema | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonSchema) : undefined;
}

/** A schema as the files under docs/schemas hold it: two-space indents and a final newline. */
export function formatJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
