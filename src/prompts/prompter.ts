import { openSync } from 'node:fs';
import { WriteStream } from 'node:tty';
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { InStream, OutStream } from '../io.js';
import { UNICODE_GLYPHS, type Glyphs } from '../output/glyphs.js';

/**
 * The prompts every interactive path asks through: the composer (greet, reply and reason update
 * -i) and `core config init`. They take a Prompter from the context rather than calling inquirer,
 * so a test can hand them a scripted one; the real one (`createPrompter`) loads each inquirer
 * prompt package on first use.
 */

export interface InputConfig {
  message: string;
  default?: string;
  /** Returns true, or the message to show under the prompt; the answer is not accepted until true. */
  validate?: (value: string) => true | string;
  /** How the typed value is shown; `isFinal` once the answer is accepted. */
  transformer?: (value: string, state: { isFinal: boolean }) => string;
}

export interface EditorConfig {
  message: string;
  default?: string;
  validate?: (value: string) => true | string;
  /** The temporary file's extension, so the editor picks a fitting mode. */
  postfix?: string;
}

export interface Choice<T> {
  value: T;
  name: string;
  description?: string;
  /** What the answered prompt shows once chosen, when shorter than the name. */
  short?: string;
  /** A reason why it cannot be chosen now, shown beside it. */
  disabled?: string | false;
}

export interface SelectConfig<T> {
  message: string;
  choices: Choice<T>[];
  default?: T;
}

export interface CheckboxConfig<T> {
  message: string;
  choices: (Choice<T> & { checked?: boolean })[];
}

export interface PasswordConfig {
  message: string;
  validate?: (value: string) => true | string;
}

export interface ConfirmConfig {
  message: string;
  default?: boolean;
}

export interface Prompter {
  input(config: InputConfig): Promise<string>;
  editor(config: EditorConfig): Promise<string>;
  select<T>(config: SelectConfig<T>): Promise<T>;
  checkbox<T>(config: CheckboxConfig<T>): Promise<T[]>;
  confirm(config: ConfirmConfig): Promise<boolean>;
  /** A secret: what is typed shows as `*`. */
  password(config: PasswordConfig): Promise<string>;
  /** Writes text between prompts (the preview, notes) where the prompts are drawn. */
  write(text: string): void;
  /** The terminal's width, for drawing the preview. */
  readonly columns: number;
  /** Whether the prompts' stream shows colour. */
  readonly color: boolean;
  /** The glyphs drawn around the prompts (ASCII under a locale that is not UTF-8); Unicode when absent. */
  readonly glyphs?: Glyphs;
}

/**
 * Whether an error means the user left the prompt: Ctrl-C (inquirer's ExitPromptError) or the
 * invocation's abort signal (AbortPromptError, on SIGTERM). Checked by name so that this module
 * does not load @inquirer/core just to compare classes.
 */
export function isPromptExit(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'ExitPromptError' || name === 'AbortPromptError';
}

/**
 * The real prompter, on inquirer. The prompts are drawn on standard error, so standard output keeps
 * only the result (docs/json-output.md: with --json nothing else is on stdout), and read from
 * standard input, which `requireTerminal` has checked is a terminal: inquirer itself never refuses
 * to prompt without one: it would wait forever on an idle pipe.
 *
 * Each prompt is its own package, imported on first use: the `@inquirer/prompts` bundle would load
 * all of them, and its editor drags in iconv-lite.
 */
/** What the real prompter needs of the invocation (a Context has all of it). */
export interface PromptHost {
  readonly streams: { stdin: InStream; stderr: OutStream };
  readonly color: { stderr: boolean };
  /** The context's glyphs; Unicode when absent. */
  readonly glyphs?: Glyphs;
  readonly signal: AbortSignal;
  err(text: string): void;
}

/** What each inquirer prompt is given besides its configuration. */
interface PromptContext {
  input: InStream;
  output: OutStream;
  signal: AbortSignal;
}

export function createPrompter(host: PromptHost): Prompter {
  // Where the prompts are drawn: standard error when it is the terminal; when it is not (`core
  // greet -i 2>log`), the terminal itself, /dev/tty, as git and ssh ask for a password, so that the
  // prompts are seen and the log keeps only the messages; standard error when there is no such
  // device (Windows, no controlling terminal).
  let drawing: OutStream | undefined;
  const screen = (): OutStream => {
    drawing ??= host.streams.stderr.isTTY === true ? host.streams.stderr : (openTerminal() ?? host.streams.stderr);
    return drawing;
  };
  // Each prompt ends its output stream when it is answered, and piping passes that end on to any
  // stream but process.stdout and process.stderr; a stream of its own per prompt keeps the
  // invocation's stderr open for the next prompt and for the command's messages.
  const output = (): OutStream => {
    const target = screen();
    return Object.assign(
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          target.write(chunk, (error) => done(error ?? undefined));
        },
      }),
      { isTTY: target.isTTY, columns: target.columns },
    );
  };
  // A prompt settles as soon as it has its answer, while the last of its drawing (the answer on its
  // line, the cursor moved below it) may still wait in its stream, which hands the terminal one
  // chunk at a time, each after the previous one's callback. Text written next (the preview) would
  // land before that drawing, which then moves the cursor up by the height it last drew and erases
  // the lines there: the preview. So a prompt's answer is handed on only once its stream has
  // finished, when all it drew is on the screen.
  const ask = async <T>(prompt: (context: PromptContext) => Promise<T>): Promise<T> => {
    const drawn = output();
    try {
      return await prompt({ input: host.streams.stdin, output: drawn, signal: host.signal });
    } finally {
      // The prompt ends its stream as it settles; one that never began (it threw at once) has nothing
      // to wait for, and a drawing that failed (the terminal gone) changes nothing about the answer.
      if (drawn.writableEnded) await finished(drawn).catch(() => undefined);
    }
  };
  // inquirer colours with node:util styleText, decided for the whole process; --no-color and
  // NO_COLOR are honoured by handing every prompt a theme without colour, and a locale that is not
  // UTF-8 by one with ASCII figures (inquirer's own choice of figures does not read the locale).
  const glyphs = host.glyphs ?? UNICODE_GLYPHS;
  const chosen = glyphs.unicode
    ? host.color.stderr
      ? undefined
      : PLAIN_THEME
    : asciiTheme(host.color.stderr ? undefined : PLAIN_THEME, glyphs);
  const theme = chosen === undefined ? {} : { theme: chosen as never };
  return {
    async input(config) {
      const { default: input } = await import('@inquirer/input');
      return ask((context) =>
        input(
          {
            message: config.message,
            ...(config.default !== undefined ? { default: config.default } : {}),
            ...(config.validate ? { validate: config.validate } : {}),
            ...(config.transformer ? { transformer: config.transformer } : {}),
            ...theme,
          },
          context,
        ),
      );
    },
    async editor(config) {
      const { default: editor } = await import('@inquirer/editor');
      return ask((context) =>
        editor(
          {
            message: config.message,
            ...(config.default !== undefined ? { default: config.default } : {}),
            ...(config.validate ? { validate: config.validate } : {}),
            postfix: config.postfix ?? '.txt',
            ...theme,
          },
          context,
        ),
      );
    },
    async select<T>(config: SelectConfig<T>) {
      const { default: select } = await import('@inquirer/select');
      return ask(
        (context) =>
          select<T>(
            {
              message: config.message,
              choices: config.choices.map((c) => ({
                value: c.value,
                name: c.name,
                ...(c.short !== undefined ? { short: c.short } : {}),
                ...(c.description !== undefined ? { description: c.description } : {}),
                ...(c.disabled ? { disabled: c.disabled } : {}),
              })),
              ...(config.default !== undefined ? { default: config.default } : {}),
              ...theme,
            },
            context,
          ) as Promise<T>,
      );
    },
    async checkbox<T>(config: CheckboxConfig<T>) {
      const { default: checkbox } = await import('@inquirer/checkbox');
      return ask(
        (context) =>
          checkbox<T>(
            {
              message: config.message,
              choices: config.choices.map((c) => ({
                value: c.value,
                name: c.name,
                checked: c.checked === true,
                ...(c.short !== undefined ? { short: c.short } : {}),
                ...(c.description !== undefined ? { description: c.description } : {}),
                ...(c.disabled ? { disabled: c.disabled } : {}),
              })),
              ...theme,
            },
            context,
          ) as Promise<T[]>,
      );
    },
    async confirm(config) {
      const { default: confirm } = await import('@inquirer/confirm');
      return ask((context) =>
        confirm({ message: config.message, ...(config.default !== undefined ? { default: config.default } : {}), ...theme }, context),
      );
    },
    async password(config) {
      const { default: password } = await import('@inquirer/password');
      return ask((context) =>
        password({ message: config.message, mask: true, ...(config.validate ? { validate: config.validate } : {}), ...theme }, context),
      );
    },
    write(text) {
      if (screen() === host.streams.stderr) host.err(text);
      else screen().write(text);
    },
    get columns() {
      return screen().columns ?? 80;
    },
    color: host.color.stderr,
    glyphs,
  };
}

/** The controlling terminal for writing, or undefined when there is none. It holds no process open. */
function openTerminal(): OutStream | undefined {
  if (process.platform === 'win32') return undefined;
  try {
    const stream = new WriteStream(openSync('/dev/tty', 'w'));
    stream.unref();
    return stream;
  } catch {
    return undefined;
  }
}

const plain = (text: string): string => text;

/** The names of the keys inquirer shows in its help line, in ASCII. */
const ASCII_KEYS: Record<string, string> = { '↑↓': 'up/down', '⏎': 'enter', '␣': 'space' };

/**
 * A theme whose figures are ASCII: the answered mark, the cursor, the boxes of a checkbox list, the
 * spinner and the keys of the help line; over `base` (the plain theme without colour), else over
 * inquirer's colours.
 */
function asciiTheme(base: typeof PLAIN_THEME | undefined, glyphs: Glyphs): object {
  return {
    ...base,
    prefix: { idle: '?', done: glyphs.answered },
    spinner: { frames: ['-', '\\', '|', '/'] },
    icon: {
      cursor: '>',
      checked: glyphs.checked,
      unchecked: glyphs.unchecked,
      disabledChecked: glyphs.disabledChecked,
      disabledUnchecked: '-',
    },
    style: {
      ...base?.style,
      keysHelpTip: (keys: [string, string][]) => keys.map(([key, action]) => `${ASCII_KEYS[key] ?? key} ${action}`).join(glyphs.bullet),
    },
  };
}

/** inquirer's default theme with every colour taken out (the figures stay). */
const PLAIN_THEME = {
  prefix: { idle: '?', done: '✔' },
  spinner: { frames: ['-', '\\', '|', '/'] },
  icon: { checked: '◉', unchecked: '◯', disabledChecked: '◎', disabledUnchecked: '-' },
  style: {
    answer: plain,
    message: plain,
    error: (text: string) => `> ${text}`,
    defaultAnswer: (text: string) => `(${text})`,
    help: plain,
    highlight: plain,
    key: (text: string) => `<${text}>`,
    disabled: plain,
    description: plain,
    keysHelpTip: (keys: [string, string][]) => keys.map(([key, action]) => `${key} ${action}`).join(' • '),
  },
};
