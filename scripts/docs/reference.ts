import type { CommandSpec, OptionSpec } from '../../src/commands/completion/tree.js';
import { topicText } from '../../src/commands/help/text.js';
import { TOPICS, TOPIC_NAMES } from '../../src/commands/help-topics.js';

/**
 * The command reference in docs/commands: one Markdown page per command and subcommand, and an
 * index (README.md, which also documents `core` itself), rendered from the command tree and the
 * text each command adds after its help (its examples). Pure: the caller supplies that text.
 */

export const GENERATED_NOTE =
  '<!-- Generated from the command definitions by `node scripts/generate-docs.mjs`; do not edit by hand. -->';

/** The help text a command adds after commander's own (its examples), by command path. */
export type AfterHelp = (spec: CommandSpec) => string;

/** The page of a command: `reason-update.md`; the root's page is the index, README.md. */
export function pageName(spec: CommandSpec): string {
  return spec.path.length === 0 ? 'README.md' : `${spec.path.join('-')}.md`;
}

/** commander's own `help [command]`: documented once in the index, not as pages of their own. */
export function isHelpCommand(spec: CommandSpec): boolean {
  return spec.name === 'help' && spec.path.length > 0 && spec.arguments[0]?.name === 'command';
}

/** Every page: file name → Markdown. */
export function referencePages(root: CommandSpec, afterHelp: AfterHelp): Map<string, string> {
  const pages = new Map<string, string>();
  const visit = (spec: CommandSpec) => {
    pages.set(pageName(spec), spec.path.length === 0 ? indexPage(spec, afterHelp) : commandPage(spec, afterHelp));
    for (const sub of spec.subcommands) if (!isHelpCommand(sub)) visit(sub);
  };
  visit(root);
  // The help topics (`core help environment`), a page each, their text as core prints it.
  for (const name of TOPIC_NAMES) {
    pages.set(`help-${name}.md`, finish([GENERATED_NOTE, '', `# core help ${name}`, '', `${TOPICS[name]}.`, '', '```text', topicText(name).trimEnd(), '```']));
  }
  return pages;
}

function title(spec: CommandSpec): string {
  return ['core', ...spec.path].join(' ');
}

function link(spec: CommandSpec): string {
  return `[\`${title(spec)}\`](${pageName(spec)})`;
}

function indexPage(root: CommandSpec, afterHelp: AfterHelp): string {
  const all: CommandSpec[] = [];
  const collect = (spec: CommandSpec) => {
    for (const sub of spec.subcommands) {
      if (isHelpCommand(sub)) continue;
      all.push(sub);
      collect(sub);
    }
  };
  collect(root);
  const lines = [
    GENERATED_NOTE,
    '',
    '# Command reference',
    '',
    paragraphs(root.description),
    '',
    "Each page holds what `core <command> --help` (or `core help <command>`) prints. Every command's help ends with real examples.",
    '',
    '```',
    root.usage,
    '```',
    '',
    '## Commands',
    '',
    '| command | what it does |',
    '|---|---|',
    ...all.map((spec) => `| ${link(spec)} | ${cell(spec.summary)} |`),
    '',
    '## Help topics',
    '',
    '| topic | what it says |',
    '|---|---|',
    ...TOPIC_NAMES.map((name) => `| [\`core help ${name}\`](help-${name}.md) | ${cell(TOPICS[name])} |`),
    '',
    '## Global options',
    '',
    'These are accepted before or after any command (`core -p prod reply ...` or `core reply ... -p prod`).',
    '',
    ...optionTable(root.options),
    ...withoutNotes(afterSections(root, afterHelp)),
  ];
  return finish(lines);
}

/** The root's notes are the help topics and the docs' address, which the index has as a table: its examples alone. */
function withoutNotes(sections: string[]): string[] {
  const at = sections.indexOf('## Notes');
  // ['', '## Notes', '', text] as afterSections writes them.
  return at === -1 ? sections : [...sections.slice(0, at - 1), ...sections.slice(at + 3)];
}

function commandPage(spec: CommandSpec, afterHelp: AfterHelp): string {
  const lines = [GENERATED_NOTE, '', `# ${title(spec)}`, '', paragraphs(spec.description), '', '```', spec.usage, '```'];
  if (spec.arguments.length > 0) {
    lines.push('', '## Arguments', '', '| argument | description | values |', '|---|---|---|');
    for (const argument of spec.arguments) {
      const values = argument.value.kind === 'words' ? argument.value.words.map((word) => `\`${word}\``).join(', ') : '';
      const name = argument.required ? `<${argument.name}>` : `[${argument.name}]`;
      lines.push(`| \`${name}\` | ${cell(argument.description)} | ${values} |`);
    }
  }
  const subcommands = spec.subcommands.filter((sub) => !isHelpCommand(sub));
  if (subcommands.length > 0) {
    lines.push('', '## Commands', '', '| command | what it does |', '|---|---|');
    for (const sub of subcommands) lines.push(`| ${link(sub)} | ${cell(sub.summary)} |`);
  }
  lines.push('', '## Options', '', ...optionTable(spec.options));
  if (spec.globalOptions.length > 0) {
    const names = spec.globalOptions.map((option) => `\`${option.flags}\``).join(', ');
    lines.push('', `Global options: ${names} ([reference](README.md#global-options)).`);
  }
  lines.push(...afterSections(spec, afterHelp));
  return finish(lines);
}

function optionTable(options: OptionSpec[]): string[] {
  return [
    '| option | description | default |',
    '|---|---|---|',
    ...options.map((option) => {
      const values = option.value?.kind === 'words' ? `${/[.!?]$/.test(option.description) ? '' : '.'} One of ${option.value.words.map((word) => `\`${word}\``).join(', ')}.` : '';
      return `| \`${option.flags}\` | ${cell(option.description)}${values} | ${option.defaultText === undefined ? '' : cell(option.defaultText)} |`;
    }),
  ];
}

/**
 * The text a command adds after its help: notes (such as the exit status of `reason update`) as
 * paragraphs, then its examples as a console block.
 */
function afterSections(spec: CommandSpec, afterHelp: AfterHelp): string[] {
  const text = afterHelp(spec).replace(/\s+$/, '');
  const at = text.search(/^Examples:\s*$/m);
  const notes = (at === -1 ? text : text.slice(0, at)).trim();
  const examples = at === -1 ? '' : text.slice(at).replace(/^Examples:\s*\n/, '');
  const out: string[] = [];
  if (notes !== '') out.push('', '## Notes', '', paragraphs(notes));
  if (examples.trim() !== '') out.push('', '## Examples', '', '```console', ...dedent(examples.split('\n')), '```');
  return out;
}

function dedent(lines: string[]): string[] {
  const indents = lines.filter((line) => line.trim() !== '').map((line) => /^ */.exec(line)![0].length);
  const common = Math.min(...indents);
  return lines.map((line) => line.slice(common).trimEnd());
}

/** commander descriptions break lines for the terminal; Markdown joins them into paragraphs. */
function paragraphs(text: string): string {
  return text
    .trim()
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.replace(/\s*\n\s*/g, ' '))
    .join('\n\n');
}

/** Text in a table cell: one line, pipes escaped. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
}

function finish(lines: string[]): string {
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}
