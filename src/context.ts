import type { LoadInput, Settings } from './config/index.js';
import type { Env, OutStream, Streams } from './io.js';
import { createMask, isMaskedText, maskedText, type MaskedText } from './mask.js';
import { jsonEscaped, neutralize } from './output/terminal.js';
import { createHold } from './output/hold.js';
import { glyphsFor, plainText, type Glyphs } from './output/glyphs.js';
import { stringifyJson } from './payload/json.js';
import { createPrompter, type Prompter } from './prompts/prompter.js';

/**
 * Per-invocation state and dependencies, in the spirit of gh's cmdutil.Factory: what every command
 * needs (streams, environment, colour, secret masking, the Ctrl-C signals) and what some need, built
 * on first use (the settings, the prompter). A run function receives a Context and never touches
 * `process`, `console`, commander or inquirer, so a test hands it in-memory streams, a fake env and a
 * scripted prompter, and no command takes test-only arguments.
 */

export type { Env, InStream, OutStream, Streams } from './io.js';

/** The flags that choose and override settings: global --config, -p, --base-url, --tenant; --timeout, --ca-file. */
export type SettingsFlags = LoadInput['flags'];

export interface Context {
  readonly streams: Streams;
  readonly env: Env;
  readonly cwd: string;
  /** Colour on stdout / stderr, decided once from the terminal, NO_COLOR, FORCE_COLOR and --no-color. */
  readonly color: { stdout: boolean; stderr: boolean };
  /**
   * The glyphs of human output (✓, ✗, →, boxes, …), or their ASCII stand-ins under a locale that is
   * not UTF-8 (LC_ALL, LC_CTYPE, LANG: src/output/glyphs.ts), decided once.
   */
  readonly glyphs: Glyphs;
  /** CORE_DEBUG=1: stack traces for unexpected errors (never a secret). */
  readonly debug: boolean;
  /** Aborted on the first Ctrl-C (SIGINT) or SIGTERM. */
  readonly signal: AbortSignal;
  /**
   * Aborted on a second Ctrl-C: what is still in flight is abandoned (a batch reports it with its
   * outcome unknown). A single request is already cut off by the first.
   */
  readonly abandonSignal: AbortSignal;
  /**
   * Sets the process's heap for a batch of many requests (src/heap.ts), when the process is core's
   * own (src/bin.ts); otherwise does nothing.
   */
  tuneHeapForBatch(): void;
  /** Writes to stdout, with every known secret masked (text made by `json` is already masked). */
  out(text: string | MaskedText): void;
  /**
   * From now on, `out` holds its text and writes it in larger pieces (src/output/hold.ts), until the
   * returned function is called, or the run is asked to stop; anything written to stderr through
   * the context first writes what is held. For a batch's line per item.
   */
  holdOutput(): () => void;
  /** Writes to stderr, with every known secret masked. */
  err(text: string | MaskedText): void;
  /**
   * `value` as a JSON document ending in a new line (one line, or indented by `indent`), with every
   * known secret masked in its keys and strings before it is written (src/mask.ts): valid JSON
   * whatever a secret holds. Hand it to `out`.
   */
  json(value: unknown, indent?: number): MaskedText;
  /** A `warning: ...` line on stderr, in ASCII punctuation when the glyphs are. */
  warn(message: string): void;
  /**
   * Registers a value that must never be printed; every later write masks it, in each of its forms
   * (src/mask.ts). Returns false, registering nothing, for a value too short or too common to be
   * told apart from ordinary output: that one is masked by field only.
   */
  addSecret(value: string): boolean;
  /** Masks every registered secret in a string. */
  redact(text: string): string;
  /** Masks as `redact` does, and the end of a text cut short when it is the start of a secret. */
  redactCutEnd(text: string): string;
  /** A copy of a JSON value with every registered secret masked in its keys and strings. */
  redactValue<T>(value: T): T;
  /**
   * The effective settings (config file, profile, environment, flags), loaded on the first call and
   * kept for the invocation; later calls return the same settings whatever flags they pass.
   */
  settings(flags: SettingsFlags): Promise<Settings>;
  /** The prompts (for -i and `config init`): inquirer on the terminal, or what the context was given. */
  prompter(): Prompter;
}

export { MASK, type MaskedText } from './mask.js';

export interface ContextInit {
  streams: Streams;
  env: Env;
  cwd: string;
  /** false when --no-color was given. */
  colorFlag?: boolean;
  signal?: AbortSignal;
  abandonSignal?: AbortSignal;
  tuneHeapForBatch?: () => void;
  /** Answers the prompts instead of inquirer (tests). */
  prompter?: Prompter;
}

/** Colour is on for a terminal unless NO_COLOR is set or --no-color was given; FORCE_COLOR turns it on. */
export function decideColor(stream: OutStream, env: Env, colorFlag: boolean | undefined): boolean {
  if (colorFlag === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  return stream.isTTY === true && env.TERM !== 'dumb';
}

export function createContext(init: ContextInit): Context {
  const mask = createMask();
  const redact = (text: string): string => mask.redact(text);
  const color = {
    stdout: decideColor(init.streams.stdout, init.env, init.colorFlag),
    stderr: decideColor(init.streams.stderr, init.env, init.colorFlag),
  };
  const glyphs = glyphsFor(init.env);
  const stdout = createHold((text) => void init.streams.stdout.write(text));
  const ctx: Context = {
    streams: init.streams,
    env: init.env,
    cwd: init.cwd,
    color,
    glyphs,
    debug: init.env.CORE_DEBUG === '1' || init.env.CORE_DEBUG === 'true',
    signal: init.signal ?? new AbortController().signal,
    abandonSignal: init.abandonSignal ?? new AbortController().signal,
    tuneHeapForBatch: init.tuneHeapForBatch ?? (() => {}),
    // Text for people is also made safe for a terminal (src/output/terminal.ts); JSON is escaped already.
    out: (text) => stdout.write(isMaskedText(text) ? text.text : neutralize(redact(text))),
    err: (text) => {
      stdout.flush();
      init.streams.stderr.write(isMaskedText(text) ? text.text : neutralize(redact(text)));
    },
    holdOutput() {
      if (stdout.active) return () => {};
      // A run asked to stop writes at once from then on: it may be ended before it releases.
      if (ctx.signal.aborted) return () => {};
      const stopHolding = () => stdout.release();
      ctx.signal.addEventListener('abort', stopHolding, { once: true });
      stdout.start();
      return () => {
        ctx.signal.removeEventListener('abort', stopHolding);
        stdout.release();
      };
    },
    json: (value, indent) => {
      // Masked by structure only when a secret can be in it at all (src/mask.ts, `mayHold`).
      const plain = stringifyJson(value, indent);
      const text = mask.mayHold(plain) ? stringifyJson(mask.redactValue(value), indent) : plain;
      return maskedText(`${jsonEscaped(text)}\n`);
    },
    warn: (message) => {
      const label = color.stderr ? '\u001b[33mwarning:\u001b[39m' : 'warning:';
      stdout.flush();
      init.streams.stderr.write(neutralize(redact(`${label} ${plainText(message, glyphs)}\n`)));
    },
    addSecret: (value) => mask.add(value),
    redact,
    redactCutEnd: (text) => mask.redactCutEnd(text),
    redactValue: (value) => mask.redactValue(value),
    settings(flags) {
      settings ??= import('./config/index.js').then(({ loadSettings }) =>
        loadSettings({ cwd: init.cwd, env: init.env, flags, warn: (message) => ctx.warn(message), signal: ctx.signal }),
      );
      return settings;
    },
    prompter() {
      prompter ??= init.prompter ?? createPrompter(ctx);
      return prompter;
    },
  };
  let settings: Promise<Settings> | undefined;
  let prompter: Prompter | undefined;
  return ctx;
}
