import type { Context } from '../../context.js';
import { ExitCode } from '../../errors.js';
import { versionText } from '../../version.js';
import { topicText } from './text.js';
import { DOCS_URL, TOPIC_NAMES, type Direct } from '../help-topics.js';

/**
 * What main answers without commander (src/program.ts, `directInvocation`): a help topic, the short
 * usage of a bare `core`, and `core --version --json`. Each is printed on stdout and exits 0.
 */
export function runDirect(direct: Direct, ctx: Context): number {
  switch (direct.kind) {
    case 'topic':
      ctx.out(topicText(direct.name));
      break;
    case 'version':
      ctx.out(versionText(direct.json));
      break;
    case 'usage':
      ctx.out(usageText());
      break;
  }
  return ExitCode.ok;
}

/**
 * `core` with no command: what it is, how to go on, and where the docs are; the whole help is
 * `core help`. Exit 0, as gh does: asking what a tool is, is no error.
 */
export function usageText(): string {
  return `core: the chatbot integration API from a shell, a local sandbox of the platform, and tests for your bot.

Usage: core <command> [options]

Start here:
  core sandbox                    a local platform to try things on (no account needed)
  core customer say "Hi"          play the customer of your bot
  core test tests/ --bot-url URL  its conversations as regression tests
  core reply, greet, reason       talk to the service (core config init sets it up)
  core doctor                     check that everything is in place

More:
  core help                       every command and option
  core help <command>             one command, with examples
  core help <topic>               ${TOPIC_NAMES.join(', ')}

Docs: ${DOCS_URL} (and man core)
`;
}
