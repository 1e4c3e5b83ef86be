import { Argument, Command } from 'commander';
import type { CommandFactory } from '../definition.js';
import { SCHEMA_KINDS, type SchemaKind } from '../../schema/kinds.js';

/** `core schema reply|greet|reason|config|test|message` (docs/commands/schema.md). */
export const schemaCommand: CommandFactory = (inv) => {
  const cmd = new Command('schema')
    .summary(
      'print the JSON Schema of a payload (reply, greet, reason), of the config file, of a core test file, or of the MESSAGE webhook',
    )
    .description(
      'Print the JSON Schema (draft 2020-12) of a request body, reply, greet or reason, of the config file, or of a ' +
        'conversation test file of core test, or of the body of the MESSAGE webhook the platform (and core sandbox) ' +
        'sends your bot, ' +
        'generated from the very rules core checks before sending, fields that go together included. The rules ' +
        'a JSON Schema cannot express (uniqueness across a list, a total across the sections of a list, lengths ' +
        'counted in UTF-16 units) are written in its descriptions. A payload schema describes a payload file, ' +
        'which may also carry $schema and receivedAt "now".\n\n' +
        'The same schemas ship in the package under docs/schemas/; docs/recipes.md shows how to point an editor ' +
        'at them.',
    )
    .addArgument(
      new Argument(
        '<kind>',
        'the request body (reply, greet, reason), the config file (config), a test file (test) or the MESSAGE webhook (message)',
      ).choices(SCHEMA_KINDS),
    );
  cmd.addHelpText(
    'after',
    `
Examples:
  $ core schema reply > reply.schema.json
  $ core schema reason | jq -r .description
  $ core schema reply | jq '.properties.quickReplies.items.properties.text'
  $ core schema config | jq -r '.properties.profiles.additionalProperties.properties | keys[]'
  $ core schema test > tests/test.schema.json
  $ core schema message | jq '.properties.message.required'`,
  );
  cmd.action(async (kind: SchemaKind) => {
    const { runSchema } = await import('./run.js');
    inv.exitCode = await runSchema({ kind }, inv.ctx);
  });
  return cmd;
};
