import { Argument, Command } from 'commander';
import { globalOptions, type CommandFactory } from '../definition.js';
import { addSendOptions, readSendOptions } from '../send-options.js';
import { API_METHODS } from './methods.js';
import type { ApiOptions } from './run.js';

/** `core api METHOD PATH`: the escape hatch (docs/commands/api.md). */
export const apiCommand: CommandFactory = (inv) => {
  const cmd = new Command('api')
    .summary('send a request core does not know yet, with the profile, the credential and the network rules')
    .description(
      "Send METHOD PATH to the service, for a field or an endpoint core does not know yet: the profile's base URL, " +
        'tenant and credential, the network rules (plain http, CA, proxy), --dry-run, --curl, -v and the masking of ' +
        'secrets work as everywhere, but the body is sent as given, with no payload rule checked.\n\n' +
        'PATH is below the base URL (a query string may follow); an absolute URL is refused, since the credential ' +
        'would go to that host; its dot segments are resolved first (/a/../b is /b, and it stays below the base ' +
        'URL\'s own path), as the request goes. The body comes from -f FILE (JSON or YAML; "-" for standard input). The credential ' +
        'is the integrator token (else the token) below /api/v1/inactivity, the token elsewhere. A failed GET, PUT ' +
        'or DELETE is repeated as other requests are; a POST or PATCH only with --retry (or a reply carrying an ' +
        'answerId).\n\n' +
        'The response body is printed on stdout as it came (JSON pretty-printed); with --json, the result document ' +
        'holds it as "body".',
    )
    .addArgument(new Argument('<method>', `the HTTP method: ${API_METHODS.join(', ')} (any case)`))
    .addArgument(new Argument('<path>', 'the path below the base URL, such as /api/v1/chatbot'))
    .option('--retry', 'repeat a POST or PATCH after a failure too (it may then apply twice)');
  addSendOptions(cmd, { interactive: false });
  // The shared send options, described as they work here: nothing is checked.
  const describe = (long: string, description: string) => {
    const option = cmd.options.find((o) => o.long === long);
    if (option) option.description = description;
  };
  describe('--file', 'the body: a JSON or YAML file ("-" for standard input), sent as given');
  describe('--dry-run', 'print the request that would be sent (secrets masked); send nothing');
  describe('--json', 'print one JSON result document on stdout, the response body in "body"');
  cmd.addHelpText(
    'after',
    `
Examples:
  $ core api POST /api/v1/chatbot -f answer-with-new-field.json --dry-run
  $ core api POST /api/v1/chatbot -f answer.json --curl
  $ core api PUT /api/v1/inactivity/reasons -f reason.json -v
  $ jq -n '{coreClientId: 42, text: "Hi", answerId: "a-1"}' | core api POST /api/v1/chatbot -f -
  $ core api GET /api/v1/some/new/endpoint --json | jq .body`,
  );
  cmd.action(async (method: string, path: string, raw: Record<string, unknown>, self: Command) => {
    const options: ApiOptions = { ...readSendOptions(raw), global: globalOptions(self), method, path, retry: raw.retry === true };
    const { runApi } = await import('./run.js');
    inv.exitCode = await runApi(options, inv.ctx);
  });
  return cmd;
};
