import type { CommandSpec, OptionSpec } from '../../src/commands/completion/tree.js';
import { isHelpCommand, type AfterHelp } from './reference.js';

/**
 * The manual page `man core` shows (docs/man/core.1, installed through package.json's `man`), in
 * roff, rendered from the same command tree as the reference pages and the completion scripts, so
 * it lists exactly what the parser accepts. Pure: the caller supplies each command's examples.
 */

export interface ManPageInput {
  version: string;
  /** The month of the release, as the page's footer shows it, such as "November 2026". */
  date: string;
}

export function manPage(root: CommandSpec, afterHelp: AfterHelp, input: ManPageInput): string {
  const lines: string[] = [
    `.\\" Generated from the command definitions by \`node scripts/generate-docs.mjs\`; do not edit by hand.`,
    `.TH CORE 1 "${input.date}" "core-cli ${input.version}" "User Commands"`,
    '.SH NAME',
    `core \\- ${escape(root.description.split('\n')[0]!.replace(/\.$/, '').replace(/^Talk/, 'talk'))}`,
    '.SH SYNOPSIS',
    '.B core',
    '[\\fIoptions\\fR] \\fIcommand\\fR [\\fIcommand options\\fR]',
    '.SH DESCRIPTION',
    ...paragraphs(root.description),
    '.PP',
    'Every command is described below; \\fBcore help\\fR \\fIcommand\\fR prints the same with its examples.',
    '.SH GLOBAL OPTIONS',
    ...optionList(root.options),
    '.SH COMMANDS',
  ];
  const visit = (spec: CommandSpec) => {
    for (const sub of spec.subcommands) {
      if (isHelpCommand(sub)) continue;
      lines.push(...commandSection(sub, afterHelp));
      visit(sub);
    }
  };
  visit(root);
  lines.push(
    '.SH ENVIRONMENT',
    ...environment(),
    '.SH FILES',
    '.TP',
    '.I .corerc, .corerc.json|yaml|yml, package.json (key "core")',
    'searched from the current folder up to the home folder; a file found must be owned by you (or root) and',
    'writable by you alone, or it is refused. A JavaScript config file is loaded only when named with',
    '\\fB--config\\fR or \\fBCORE_CONFIG\\fR.',
    '.TP',
    '.I $XDG_CONFIG_HOME/core/config.yaml \\fR(else\\fI ~/.config/core/config.yaml\\fR)',
    'the user config file, written by \\fBcore config init\\fR.',
    '.TP',
    '.I $XDG_CACHE_HOME/core/compile/ \\fR(else\\fI ~/.cache/core/compile/\\fR)',
    'the code Node compiled for core, kept to start faster; safe to delete at any time.',
    '.SH EXIT STATUS',
    ...exitStatus(),
    '.SH EXAMPLES',
    ...examples(afterHelp(root)),
    '.SH SEE ALSO',
    'The guides and the reference of every command: https://github.com/core-cli/core-cli/tree/main/docs',
    '.SH BUGS',
    'Report them at https://github.com/core-cli/core-cli/issues; see SECURITY.md for vulnerabilities.',
  );
  return `${lines.join('\n')}\n`;
}

function commandSection(spec: CommandSpec, afterHelp: AfterHelp): string[] {
  const lines = ['.SS', `\\fB${escape(spec.usage)}\\fR`];
  lines.push(...paragraphs(spec.description || spec.summary));
  const own = spec.options.filter((option) => option.long !== '--help');
  if (own.length > 0) lines.push('.PP', 'Options:', '.RS', ...optionList(own), '.RE');
  const shown = examples(afterHelp(spec));
  if (shown.length > 0) lines.push('.PP', 'Examples:', ...shown);
  return lines;
}

function optionList(options: OptionSpec[]): string[] {
  const lines: string[] = [];
  for (const option of options) {
    lines.push('.TP', `\\fB${escape(option.flags)}\\fR`, escape(optionText(option)));
  }
  return lines;
}

/**
 * An option's text with its default stated once: where the description says it ("(default 30s)",
 * "(default: a new UUID, printed)", "(...; default 3)"), as it is; else with the definition's
 * default added. The command tree finds the default in either place (src/commands/completion/tree.ts).
 */
export function optionText(option: Pick<OptionSpec, 'description' | 'defaultText'>): string {
  if (option.defaultText === undefined || statesDefault(option.description)) return option.description;
  return `${option.description} (default: ${option.defaultText})`;
}

function statesDefault(description: string): boolean {
  return [...description.matchAll(/\(([^()]*)\)/g)].some(([, inside]) => /(?:^|;\s*)default:?\s/i.test(inside ?? ''));
}

/** The `$ core ...` lines a command prints after its help, as an unfilled block. */
function examples(text: string): string[] {
  const lines = text
    .split('\n')
    .filter((line) => line.startsWith('  $ ') || (line.startsWith('      ') && line.trim() !== ''))
    .map((line) => escape(line.replace(/^ {2}/, '')));
  return lines.length === 0 ? [] : ['.PP', '.nf', '.RS', ...lines, '.RE', '.fi'];
}

/** Paragraphs of a description, each a filled roff paragraph. */
function paragraphs(text: string): string[] {
  return text
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== '')
    .flatMap((paragraph) => ['.PP', escape(paragraph.replace(/\s*\n\s*/g, ' '))]);
}

function environment(): string[] {
  const variables: Array<[string, string]> = [
    ['CORE_CONFIG', 'the config file to use; skips the search (like --config)'],
    ['CORE_PROFILE', 'the profile to use (like -p)'],
    ['CORE_BASE_URL', "the service's base URL (like --base-url)"],
    ['CORE_TENANT', 'the tenant, sent as X-Tenant-Name (like --tenant)'],
    ['CORE_TOKEN', "the bot's access token; there is no flag for it, since flags leak into shell history"],
    ['CORE_INTEGRATOR_TOKEN', 'the token of core reason update; defaults to the token'],
    ['CORE_TIMEOUT', 'the time limit of one attempt, such as 10s (like --timeout)'],
    ['CORE_SANDBOX_WEBHOOK_SECRET', 'the secret core sandbox, and the sandbox core test starts, sign MESSAGE webhooks with (whsec_ and base64), like --webhook-secret'],
    ['CORE_DEBUG', '1 prints stack traces of unexpected errors (never a secret)'],
    ['CORE_NO_COMPILE_CACHE', '1 neither reads nor writes the compile cache (see FILES)'],
    ['NO_COLOR, FORCE_COLOR', 'turn colour off, or on where it would be off'],
    ['HTTPS_PROXY, HTTP_PROXY, NO_PROXY', 'the proxy to reach the service through, and the hosts reached directly'],
  ];
  return variables.flatMap(([name, meaning]) => ['.TP', `.B ${name}`, escape(meaning)]);
}

function exitStatus(): string[] {
  const codes: Array<[string, string]> = [
    ['0', 'success: the service answered 2xx, or nothing needed sending (--dry-run, --curl)'],
    ['1', 'an unexpected internal error'],
    ['2', 'invalid usage, configuration or payload: nothing was sent'],
    ['3', 'core test: a conversation test failed'],
    ['4', 'the service answered 4xx'],
    ['5', 'the service answered 5xx'],
    ['6', 'no answer: connection, TLS or DNS failure, or a timeout'],
    ['130', 'interrupted (Ctrl-C or SIGTERM); a batch reports every item first'],
  ];
  return [
    ...codes.flatMap(([code, meaning]) => ['.TP', `.B ${code}`, escape(meaning)]),
    '.PP',
    'A batch exits with the largest code among its failed items. docs/exit-codes.md has every case.',
  ];
}

/** Text safe in roff: backslashes doubled, a leading dot or quote kept from reading as a request, dashes literal. */
function escape(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .split('\n')
    .map((line) => (/^[.']/.test(line) ? `\\&${line}` : line))
    .join('\n');
}
