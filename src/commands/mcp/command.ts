import { Command } from 'commander';
import type { CommandFactory } from '../definition.js';

/**
 * `core mcp`: a Model Context Protocol server over stdio (docs/mcp.md), so that a coding agent can
 * develop a bot with core. The server, and the SDK behind it, load only here: no other command pays
 * for them.
 */
export const mcpCommand: CommandFactory = (inv) =>
  new Command('mcp')
    .summary('serve core to a coding agent: a Model Context Protocol server over stdio')
    .description(
      'Serve core as a Model Context Protocol server over standard input and output, for coding agents and editors ' +
        '(Claude Code, Cursor, VS Code, Codex): tools to start and stop a sandbox with your bot, speak as the customer, ' +
        'read conversations with their refusals and deliveries, redeliver a webhook, run check-bot and core test and get ' +
        'their JSON reports, print and validate payloads, and send a reply, greeting or reason update (only with ' +
        'confirm: true); the guides as resources. stdout carries the protocol alone; the sandbox stops with the ' +
        'session. See docs/mcp.md for the set-up of each client.',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ claude mcp add core -- core mcp
  $ npx @modelcontextprotocol/inspector core mcp`,
    )
    .action(async () => {
      const { runMcp } = await import('./run.js');
      inv.exitCode = await runMcp(inv.ctx);
    });
