import type { CommandSpec, OptionSpec } from '../../src/commands/completion/tree.js';
import { ENVIRONMENT } from '../../src/commands/help/environment.js';
import { EXIT_CODES } from '../../src/commands/help/text.js';
import { TOPICS, TOPIC_NAMES } from '../../src/commands/help-topics.js';
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
    '.SH HELP TOPICS',
    ...TOPIC_NAMES.flatMap((name) => ['.TP', `.B core help ${name}`, escape(TOPICS[name])]),
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
    '.TP',
    '.I $XDG_STATE_HOME/core/ \\fR(else\\fI ~/.local/state/core/\\fR)',
    'the last conversation \\fBcore customer say\\fR started, per base URL (\\fB--session last\\fR).',
    '.PP',
    'Every file core reads and writes: \\fBcore help formats\\fR.',
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

/** Every variable core reads, from the list `core help environment` prints (src/commands/help/environment.ts). */
function environment(): string[] {
  return ENVIRONMENT.flatMap((group) =>
    group.variables.flatMap((variable) => [
      '.TP',
      `.B ${variable.names.join(', ')}`,
      escape(variable.readBy ? `${variable.what} (read by ${variable.readBy})` : variable.what),
    ]),
  );
}

/** Every exit code, from the list `core help exit-codes` prints (src/commands/help/text.ts). */
function exitStatus(): string[] {
  return [
    ...EXIT_CODES.flatMap(({ code, meaning }) => ['.TP', `.B ${code}`, escape(meaning)]),
    '.PP',
    'A batch exits with the largest code among its failed items. docs/exit-codes.md has every case; \\fBcore help exit-codes\\fR too.',
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
