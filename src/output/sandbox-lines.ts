import type { SandboxRunOptions } from '../platform/flags.js';
import { sandboxDefaults } from '../sandbox/options.js';
import type { Sandbox } from '../sandbox/server.js';

/**
 * What the sandbox prints on stdout, and all it prints there: lines a POSIX shell can `source` or
 * `eval` (docs/sandbox.md, "Running it"). The first says where the sandbox listens, as a comment; the
 * export lines point `core` and the bot at it, each value one shell word.
 */
export function startLines(sandbox: Sandbox, options: SandboxRunOptions): string[] {
  return [
    comment(`core sandbox listening on ${sandbox.url} (tenants: ${sandbox.tenants.join(', ')}; duplicates: ${sandbox.duplicates})`),
    ...startValues(sandbox, options).map(([name, value]) => `export ${name}=${shellWord(value)}`),
  ];
}

/** The variables the export lines set, in their order: also the first line of `--json`. */
export function startValues(sandbox: Sandbox, options: SandboxRunOptions): Array<[string, string]> {
  const token = options.token ?? sandboxDefaults.token;
  const values: Array<[string, string]> = [
    ['CORE_BASE_URL', sandbox.url],
    ['CORE_TENANT', sandbox.tenants[0] ?? ''],
    ['CORE_TOKEN', token],
  ];
  if (options.integratorToken !== undefined && options.integratorToken !== token) {
    values.push(['CORE_INTEGRATOR_TOKEN', options.integratorToken]);
  }
  // The bot verifies webhooks with it (docs/sandbox.md, "The MESSAGE webhook"): a test value, printed like the tokens.
  values.push(['CORE_WEBHOOK_SECRET', sandbox.webhookSecret]);
  return values;
}

/** Text as one shell comment line: a line break in it would end the comment, so none is left. */
function comment(text: string): string {
  return `# ${text.replace(/[\r\n]+/g, ' ')}`;
}

/** A value as one POSIX shell word: as is when it is plain, else in single quotes. */
function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}
