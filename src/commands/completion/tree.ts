import type { Argument, Command, Option } from 'commander';
import { CODES, KNOWN_ACTIONS } from '../../payload/codes.js';
import { duplicateModes } from '../../sandbox/options.js';
import { CHECK_IDS } from '../../testing/check-bot/ids.js';
import { TOPIC_NAMES } from '../help-topics.js';

/**
 * The command line as data: every visible command with its options, their values and its
 * arguments, read from commander's own tree. The completion scripts and the reference pages in
 * docs/commands are both made from it, so they list exactly what the parser accepts.
 */

/** How the value of an option or argument is completed. */
export type ValueKind =
  /**
   * One of a fixed set of words. With `thenFile`, a word may also be followed by `=` and a path, as
   * in `core test --reporter junit=report.xml`: after the `=` the shell completes files.
   */
  | { kind: 'words'; words: readonly string[]; thenFile?: true }
  /** A path: the shell's own file completion. */
  | { kind: 'file' }
  /** A profile name, read from the config file at completion time (`core completion __profiles`). */
  | { kind: 'profile' }
  /** Free text: nothing to offer. */
  | { kind: 'text' };

export interface OptionSpec {
  /** As written in the definition: `-t, --text <text>`. */
  flags: string;
  short?: string;
  long?: string;
  description: string;
  /** The option takes a value (`<x>` or `[x]`); undefined for a switch. */
  value?: ValueKind;
  /** The name of its value as the definition writes it: `text` for `<text>`. */
  valueName?: string;
  /** The default, as the definition states it (commander's default, or "(default ...)" in the description). */
  defaultText?: string;
  /** May be given more than once. */
  repeatable: boolean;
}

export interface ArgumentSpec {
  name: string;
  description: string;
  required: boolean;
  /** Takes every remaining word (`<file...>`): the last argument. */
  variadic: boolean;
  value: ValueKind;
}

export interface CommandSpec {
  name: string;
  /** The words after `core` that reach this command: `['reason', 'update']`; `[]` for the root. */
  path: string[];
  summary: string;
  description: string;
  /** `core reason update [options]`. */
  usage: string;
  /** Options of this command, `-h, --help` included. */
  options: OptionSpec[];
  /** The root's options, accepted after any command too (`core reply --config x.yaml`). Empty for the root. */
  globalOptions: OptionSpec[];
  arguments: ArgumentSpec[];
  subcommands: CommandSpec[];
  /** The commander command it was read from, for what only commander can render (its help text). */
  command: Command;
}

/**
 * Values that commander does not know as choices but the program does, by command path and option
 * (`reply --code`) or argument (`config use <name>`). Each list comes from where the program checks
 * the value, so a new code or mode shows up here.
 * (No option takes a quick-reply type today: --quick-reply and --contact-reply each fix one.)
 */
const KNOWN_VALUES: Readonly<Record<string, ValueKind>> = {
  'reply --code': { kind: 'words', words: CODES },
  'reply --action': { kind: 'words', words: KNOWN_ACTIONS },
  'sandbox --duplicates': { kind: 'words', words: duplicateModes },
  'check-bot --only': { kind: 'words', words: CHECK_IDS },
  // `core config use NAME` takes the name of a profile of the config file in use.
  'config use <name>': { kind: 'profile' },
};

/** Options whose value is one of their choices, or a choice, `=` and a path: `--reporter junit=report.xml`. */
const CHOICE_THEN_FILE = new Set(['test --reporter']);

/**
 * Options whose value is a path, by the name the definition gives the value: `--save <file>`,
 * `--text-file <path>`, `--resume <report>` (the report file of an earlier run). A test lists every
 * option and argument that completes files, so that a new one is a decision, not an accident.
 */
const FILE_VALUE_NAMES = new Set(['file', 'path', 'report']);

/** Arguments that are paths, by name: `core test <file...>`. (The `<path>` of `core api` is a URL's.) */
const FILE_ARGUMENT_NAMES = new Set(['file']);

export function describeTree(root: Command): CommandSpec {
  const rootOptions = root.createHelp().visibleOptions(root);
  const globals = rootOptions.filter((option) => !isHelpOrVersion(option)).map((option) => describeOption([], option));
  return describeCommand(root, [], globals);
}

function describeCommand(cmd: Command, path: string[], globals: OptionSpec[], parent?: Command): CommandSpec {
  const help = cmd.createHelp();
  const subcommands = help.visibleCommands(cmd).map((sub) => describeCommand(sub, [...path, sub.name()], globals, cmd));
  // commander's help command (`core help reply`, `core reason help update`) takes a sibling's name,
  // and core's own also a help topic (`core help environment`).
  const isHelpCommand = parent !== undefined && cmd.name() === 'help' && cmd.registeredArguments[0]?.name() === 'command';
  const siblings = isHelpCommand
    ? [
        ...help
          .visibleCommands(parent)
          .map((sub) => sub.name())
          .filter((name) => name !== 'help'),
        ...(parent.parent === null ? TOPIC_NAMES.filter((topic) => !help.visibleCommands(parent).some((sub) => sub.name() === topic)) : []),
      ]
    : [];
  return {
    name: cmd.name(),
    path,
    summary: cmd.summary() || firstSentence(cmd.description()),
    description: cmd.description() || cmd.summary(),
    usage: ['core', ...path, cmd.usage()].filter((part) => part !== '').join(' '),
    options: help.visibleOptions(cmd).map((option) => describeOption(path, option)),
    globalOptions: path.length === 0 ? [] : globals,
    arguments: cmd.registeredArguments.map((argument) => describeArgument(path, argument, isHelpCommand ? siblings : undefined)),
    subcommands,
    command: cmd,
  };
}

function describeOption(path: string[], option: Option): OptionSpec {
  const takesValue = option.required || option.optional;
  const valueName = takesValue ? /[<[]([^>\]]+)[>\]]/.exec(option.flags)?.[1] : undefined;
  const spec: OptionSpec = {
    flags: option.flags,
    description: option.description,
    repeatable: /\brepeatable\b/i.test(option.description) || option.variadic,
  };
  if (option.short) spec.short = option.short;
  if (option.long) spec.long = option.long;
  if (takesValue) {
    spec.value = valueKind(path, option, valueName);
    if (valueName) spec.valueName = valueName;
  }
  const defaultText = defaultOf(option);
  if (defaultText !== undefined) spec.defaultText = defaultText;
  return spec;
}

function valueKind(path: string[], option: Option, valueName: string | undefined): ValueKind {
  const key = [...path, option.long ?? option.short].join(' ');
  const known = KNOWN_VALUES[key];
  if (known) return known;
  if (option.argChoices) {
    return CHOICE_THEN_FILE.has(key)
      ? { kind: 'words', words: option.argChoices, thenFile: true }
      : { kind: 'words', words: option.argChoices };
  }
  if (option.long === '--profile') return { kind: 'profile' };
  if (valueName !== undefined && FILE_VALUE_NAMES.has(valueName)) return { kind: 'file' };
  return { kind: 'text' };
}

function describeArgument(path: string[], argument: Argument, words: readonly string[] | undefined): ArgumentSpec {
  return {
    name: argument.name(),
    description: argument.description,
    required: argument.required,
    variadic: argument.variadic,
    value: argumentKind(path, argument, words),
  };
}

function argumentKind(path: string[], argument: Argument, words: readonly string[] | undefined): ValueKind {
  const choices = words ?? argument.argChoices;
  if (choices) return { kind: 'words', words: choices };
  const known = KNOWN_VALUES[[...path, `<${argument.name()}>`].join(' ')];
  if (known) return known;
  if (FILE_ARGUMENT_NAMES.has(argument.name())) return { kind: 'file' };
  return { kind: 'text' };
}

/**
 * The default an option states: commander's own default (shown by its help), else the one its
 * description gives in words, as in "(default 30s)" or "(repeatable; default sandbox)". A negated
 * switch (`--no-color`) has commander's default `true`, which says nothing useful, so it has none.
 */
function defaultOf(option: Option): string | undefined {
  if (option.defaultValueDescription) return option.defaultValueDescription;
  if (option.defaultValue !== undefined && !option.negate) return JSON.stringify(option.defaultValue);
  for (const [, inside] of option.description.matchAll(/\(([^()]*)\)/g)) {
    const stated = /(?:^|;\s*)default:?\s+([^;]+)/i.exec(inside ?? '');
    if (stated?.[1]) return stated[1].trim();
  }
  return undefined;
}

function isHelpOrVersion(option: Option): boolean {
  return option.long === '--help' || option.long === '--version';
}

function firstSentence(text: string): string {
  const end = text.search(/\.(\s|$)/);
  return end === -1 ? text : text.slice(0, end);
}

/** Every command of the tree, the root first, parents before their subcommands. */
export function flatten(spec: CommandSpec): CommandSpec[] {
  return [spec, ...spec.subcommands.flatMap(flatten)];
}

/** The options a command accepts: its own, then the root's (which commander accepts after any command). */
export function acceptedOptions(spec: CommandSpec): OptionSpec[] {
  const own = new Set(spec.options.flatMap(namesOf));
  return [...spec.options, ...spec.globalOptions.filter((option) => !namesOf(option).some((name) => own.has(name)))];
}

/** The names by which an option is typed: `-t`, `--text`. */
export function namesOf(option: OptionSpec): string[] {
  return [option.short, option.long].filter((name): name is string => name !== undefined);
}
