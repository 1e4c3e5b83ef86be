import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { writeOutputFile } from '../../output/file.js';
import { CHANNELS } from '../../payload/channels.js';
import { parseJson, stringifyJson } from '../../payload/json.js';
import type { BatteryReport, SandboxPort } from '../../testing/check-bot/battery.js';
import type { FuzzCheckResult } from '../../testing/fuzz/battery.js';
import type { FuzzRule } from '../../testing/fuzz/judge.js';
import type { FuzzConversation } from '../../testing/fuzz/model.js';

/**
 * `core check-bot --fuzz N [--seed S] [--fuzz-save DIR]` and `--fuzz-replay SPEC|FILE`
 * (docs/check-bot.md, "Fuzzing"): the options checked before anything runs, the fuzzer loaded only
 * here (fast-check is never loaded by a run without them), the command that replays a case, and the
 * files --fuzz-save writes.
 */

export const MAX_FUZZ_RUNS = 100_000;

/**
 * The events the sandbox a fuzz run starts keeps (its default is 10,000): the judge reads the bot's
 * requests from the run's own event stream, and the sandbox needs only the conversations being played
 * and those that ended a moment ago, which a late second answer may still name. Eight conversations
 * are played at once, of at most five messages; seed 1 makes 14 events a conversation on average
 * against the example bot, so a conversation that ended is forgotten some 140 conversations later.
 * 10,000 events of fuzzed conversations (texts of up to 4,000 characters, the exact bytes of each
 * delivery kept for its redelivery) held ~35 MB of the ~70 MB check-bot kept alive by the end of a run.
 */
export const FUZZ_SANDBOX_EVENTS = 2_000;

/** The options of core check-bot the fuzzer reads (a part of CheckBotOptions, named here so that run.ts alone imports this file). */
export interface FuzzOptions {
  fuzz?: string;
  seed?: string;
  fuzzReplay?: string;
  fuzzSave?: string;
  only?: string[];
  sandbox?: string;
  botUrl?: string;
  port?: string;
  timeout?: string;
}
/** The format of a saved case for --fuzz-replay FILE. */
const FILE_KIND = 'core check-bot fuzz case';

export interface FuzzPlan {
  /** What runs, for the first line on stderr. */
  what: string;
  /** How many conversations it plays: the total of the live progress line. */
  conversations: number;
  run(
    port: SandboxPort,
    timeoutMs: number,
    signal: AbortSignal,
    sandboxUrl: string,
    onPlayed?: (failed: boolean, durationMs: number) => void,
  ): Promise<BatteryReport>;
  /** Writes each failing case into --fuzz-save DIR (nothing without it). */
  save(report: BatteryReport): Promise<void>;
  /** Settings of the sandbox check-bot starts for the run (not of the one at --sandbox). */
  sandbox: { maxEvents: number };
}

function whole(value: string, option: string, max: number, min = 0): number {
  const number = /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    throw new UsageError(`${option}: expected a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`, {
      hint: option === '--seed' ? 'the seed a failure printed, such as --seed 42' : 'such as --fuzz 300',
    });
  }
  return number;
}

/** The plan of a fuzz run, or undefined for the checks. */
export async function planFuzz(options: FuzzOptions, ctx: Context): Promise<FuzzPlan | undefined> {
  const { fuzz, fuzzReplay, seed, fuzzSave } = options;
  if (fuzz === undefined && fuzzReplay === undefined) {
    const stray = seed !== undefined ? '--seed' : fuzzSave !== undefined ? '--fuzz-save' : undefined;
    if (stray)
      throw new UsageError(`${stray} goes with --fuzz N or --fuzz-replay`, {
        hint: 'such as core check-bot --fuzz 300 --seed 42 --bot-url URL',
      });
    return undefined;
  }
  if (fuzz !== undefined && fuzzReplay !== undefined) {
    throw new UsageError('--fuzz and --fuzz-replay exclude each other', {
      hint: '--fuzz N runs N new conversations; --fuzz-replay plays one again',
    });
  }
  if (fuzzReplay !== undefined && seed !== undefined) throw new UsageError('--seed goes with --fuzz: --fuzz-replay names its own seed');
  const saveDir = fuzzSave === undefined ? undefined : resolve(ctx.cwd, fuzzSave);
  const command = (spec: string) => replayCommand(options, spec);
  const plan = fuzz !== undefined ? runPlan(fuzz, seed) : await replayPlan(fuzzReplay!, ctx);
  const rules = options.only === undefined ? undefined : await selectFuzzRules(options.only);
  const { runFuzzBattery } = await import('../../testing/fuzz/battery.js');
  return {
    what:
      plan.kind === 'run'
        ? `${plan.runs} fuzzed conversation${plan.runs === 1 ? '' : 's'} (seed ${plan.seed})`
        : `the fuzzed conversation ${plan.spec}`,
    conversations: plan.kind === 'run' ? plan.runs : 1,
    run: (port, timeoutMs, signal, _sandboxUrl, onPlayed) =>
      runFuzzBattery({
        port,
        timeoutMs,
        signal,
        plan,
        replayCommand: command,
        ...(rules === undefined ? {} : { rules }),
        ...(onPlayed === undefined ? {} : { onPlayed }),
      }),
    save: (report) => (saveDir === undefined ? Promise.resolve() : saveCases(report, saveDir, ctx)),
    sandbox: { maxEvents: FUZZ_SANDBOX_EVENTS },
  };
}

/**
 * The rules --only names with --fuzz: `fuzz.<rule>` as the report names the check, or the rule alone;
 * `fuzz` (or `fuzz.*`) for every rule. Every unknown word is reported at once.
 */
async function selectFuzzRules(words: readonly string[]): Promise<ReadonlySet<FuzzRule>> {
  const { FUZZ_RULES } = await import('../../testing/fuzz/judge.js');
  const chosen = new Set<FuzzRule>();
  const unknown: string[] = [];
  for (const word of words.flatMap((w) => w.split(',')).map((w) => w.trim())) {
    if (word === '') continue;
    if (word === 'fuzz' || word === 'fuzz.*') {
      for (const rule of FUZZ_RULES) chosen.add(rule);
      continue;
    }
    const rule = FUZZ_RULES.find((name) => name === word || `fuzz.${name}` === word);
    if (rule === undefined) unknown.push(`'${word}'`);
    else chosen.add(rule);
  }
  const hint = `with --fuzz, --only names the rules judged: ${FUZZ_RULES.map((rule) => `fuzz.${rule}`).join(', ')}`;
  if (unknown.length > 0) throw new UsageError(`--only: no fuzz rule ${unknown.join(', ')}`, { hint });
  if (chosen.size === 0) throw new UsageError('--only: name at least one fuzz rule', { hint });
  return chosen;
}

function runPlan(fuzz: string, seed: string | undefined) {
  const runs = whole(fuzz, '--fuzz', MAX_FUZZ_RUNS, 1);
  const chosen = seed === undefined ? Math.floor(Math.random() * 0x7fffffff) : whole(seed, '--seed', 0x7fffffff);
  return { kind: 'run' as const, seed: chosen, runs };
}

async function replayPlan(spec: string, ctx: Context) {
  const { parseReplaySpec } = await import('../../testing/fuzz/fuzz.js');
  const parsed = parseReplaySpec(spec);
  if (parsed !== undefined) {
    const { conversationAt } = await import('../../testing/fuzz/arbitraries.js');
    try {
      return { kind: 'replay' as const, spec, conversation: conversationAt(parsed.seed, parsed.path) };
    } catch (error) {
      throw new UsageError(`--fuzz-replay: ${spec} names no conversation (${(error as Error).message})`, {
        hint: 'copy the spec a failure printed',
      });
    }
  }
  return { kind: 'replay' as const, spec, conversation: await readCase(resolve(ctx.cwd, spec), spec) };
}

/** A case --fuzz-save wrote: its conversation, checked enough to be played. */
async function readCase(path: string, shown: string): Promise<FuzzConversation> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(
      `--fuzz-replay: ${shown} is neither a replay spec (<seed>:<path>) nor a readable file (${error.code ?? error.message})`,
      {
        hint: "a spec such as '42:7:0:3', or a .fuzz.json file --fuzz-save wrote",
      },
    );
  });
  let value: unknown;
  try {
    value = parseJson(text);
  } catch (error) {
    throw new UsageError(`--fuzz-replay: ${shown} is not JSON (${(error as Error).message})`);
  }
  const conversation = (value as { kind?: unknown; conversation?: FuzzConversation } | null)?.conversation;
  const valid =
    (value as { kind?: unknown }).kind === FILE_KIND &&
    conversation !== undefined &&
    (CHANNELS as readonly unknown[]).includes(conversation.channel) &&
    Array.isArray(conversation.messages) &&
    conversation.messages.length > 0;
  if (!valid) throw new UsageError(`--fuzz-replay: ${shown} is not a case core check-bot --fuzz-save wrote`);
  return asConversation(conversation);
}

/**
 * The conversation of a file as the fuzzer holds it: parseJson reads every integer as a bigint, and
 * the fuzzer's counts (a text's length, a segment's repeat, an indent) are numbers; the client's id
 * alone stays a bigint, as it goes past 2^53.
 */
function asConversation(read: FuzzConversation): FuzzConversation {
  const numbers = (value: unknown): unknown => {
    if (typeof value === 'bigint') return Number(value);
    if (Array.isArray(value)) return value.map(numbers);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, numbers(item)]));
  };
  const coreClientId = typeof read.coreClientId === 'bigint' ? read.coreClientId : null;
  return { ...(numbers({ ...read, coreClientId: null }) as FuzzConversation), coreClientId };
}

/** The command line that plays a case again against the same target. */
export function replayCommand(options: FuzzOptions, spec: string): string {
  const quote = (value: string) => (/^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`);
  const parts = ['core check-bot', `--fuzz-replay ${quote(spec)}`];
  if (options.sandbox !== undefined) parts.push(`--sandbox ${quote(options.sandbox)}`);
  if (options.botUrl !== undefined) parts.push(`--bot-url ${quote(options.botUrl)}`);
  if (options.port !== undefined) parts.push(`--port ${quote(options.port)}`);
  if (options.timeout !== undefined) parts.push(`--timeout ${quote(options.timeout)}`);
  if (options.only !== undefined) parts.push(`--only ${options.only.map(quote).join(' ')}`);
  return parts.join(' ');
}

/** Each failing case as a replay file and a core test file, in DIR. */
async function saveCases(report: BatteryReport, dir: string, ctx: Context): Promise<void> {
  const cases = (report.checks as FuzzCheckResult[]).filter((check) => check.conversation != null && check.replay !== null);
  if (cases.length === 0) return;
  await mkdir(dir, { recursive: true });
  const { coreTestOf } = await import('../../testing/fuzz/save.js');
  for (const found of cases) {
    const base = `${found.id.replace(/\./g, '-')}-${found.replay!.replace(/:/g, '-')}`;
    const file = stringifyJson({ kind: FILE_KIND, replay: found.replay, rule: found.id, conversation: found.conversation }, 2);
    await writeOutputFile(join(dir, `${base}.fuzz.json`), `${file}\n`, join(dir, `${base}.fuzz.json`), '--fuzz-save');
    const test = await coreTestOf(found.conversation!, found.id, found.command ?? '');
    await writeOutputFile(join(dir, `${base}.yaml`), test, join(dir, `${base}.yaml`), '--fuzz-save');
    ctx.err(`core check-bot: saved ${join(dir, `${base}.yaml`)} (core test) and ${base}.fuzz.json (--fuzz-replay)\n`);
  }
}
