import type { SandboxRunOptions } from '../platform/flags.js';
import { sandboxDefaults } from '../sandbox/options.js';
import type { Sandbox } from '../sandbox/server.js';

/**
 * What the sandbox prints on stdout, and all it prints there: lines a POSIX shell can `source` or
 * `eval` (docs/sandbox.md, "Running it"). The first says where the sandbox listens, as a comment; the
 * export lines point `core` and the bot at it, each value one shell word.
 */
export function startLines(sandbox: Sandbox, options: SandboxRunOptions): string[] {
  const token = options.token ?? sandboxDefaults.token;
  const lines = [
    comment(`core sandbox listening on ${sandbox.url} (tenants: ${sandbox.tenants.join(', ')}; duplicates: ${sandbox.duplicates})`),
    `export CORE_BASE_URL=${shellWord(sandbox.url)}`,
    `export CORE_TENANT=${shellWord(sandbox.tenants[0] ?? '')}`,
    `export CORE_TOKEN=${shellWord(token)}`,
  ];
  if (options.integratorToken !== undefined && options.integratorToken !== token) {
    lines.push(`export CORE_INTEGRATOR_TOKEN=${shellWord(options.integratorToken)}`);
  }
  // The bot verifies webhooks with it (docs/sandbox.md, "The MESSAGE webhook"): a test value, printed like the tokens.
  lines.push(`export CORE_WEBHOOK_SECRET=${shellWord(sandbox.webhookSecret)}`);
  return lines;
}

/** Text as one shell comment line: a line break in it would end the comment, so none is left. */
function comment(text: string): string {
  return `# ${text.replace(/[\r\n]+/g, ' ')}`;
}

/** A value as one POSIX shell word: as is when it is plain, else in single quotes. */
function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}
