/**
 * The schemas `core schema` prints. Kept apart from json-schema.ts, which loads zod, so that the
 * command's definition can list them without loading anything.
 */
export const SCHEMA_KINDS = ['reply', 'greet', 'reason', 'config', 'test', 'message', 'agents', 'seed'] as const;
export type SchemaKind = (typeof SCHEMA_KINDS)[number];

export function isSchemaKind(value: string): value is SchemaKind {
  return (SCHEMA_KINDS as readonly string[]).includes(value);
}
