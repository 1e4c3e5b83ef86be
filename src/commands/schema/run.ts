import type { Context } from '../../context.js';
import { ExitCode } from '../../errors.js';
import { formatJson, jsonSchemaOf } from '../../schema/json-schema.js';
import type { SchemaKind } from '../../schema/kinds.js';

export interface SchemaOptions {
  kind: SchemaKind;
}

/** Prints one JSON Schema on stdout, exactly as docs/schemas/<kind>.schema.json holds it. */
export async function runSchema(options: SchemaOptions, ctx: Context): Promise<number> {
  ctx.out(formatJson(jsonSchemaOf(options.kind)));
  return ExitCode.ok;
}
