import { Argument, Command } from 'commander';
import type { CommandFactory } from '../definition.js';
import { SCHEMA_KINDS, type SchemaKind } from '../../schema/kinds.js';

/** `core schema reply|greet|reason|config` (docs/commands/schema.md). */
export const schemaCommand: CommandFactory = (inv) => {
  const cmd = new Command('schema')
    .summary('print the JSON Schema of a payload (reply, greet, reason) or of the config file')
    .description(
      'Print the JSON Schema (draft 2020-12) of a request body, reply, greet or reason, or of the config file, ' +
        'generated from the very rules core checks before sending. The rules a JSON Schema cannot express ' +
        '(fields that go together, uniqueness across a list, lengths counted in UTF-16 units) are written in its ' +
        'descriptions.\n\n' +
        'The same schemas ship in the package under docs/schemas/; docs/recipes.md shows how to point an editor ' +
        'at them.',
    )
    .addArgument(new Argument('<kind>', 'the request body (reply, greet, reason) or the config file (config)').choices(SCHEMA_KINDS));
  cmd.addHelpText(
    'after',
    `
Examples:
  $ core schema reply > reply.schema.json
  $ core schema reason | jq -r .description
  $ core schema reply | jq '.properties.quickReplies.items.properties.text'
  $ core schema config | jq -r '.properties.profiles.additionalProperties.properties | keys[]'`,
  );
  cmd.action(async (kind: SchemaKind) => {
    const { runSchema } = await import('./run.js');
    inv.exitCode = await runSchema({ kind }, inv.ctx);
  });
  return cmd;
};
