import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import { PayloadError, UsageError, type Problem } from '../errors.js';
import { isRecord } from '../payload/json.js';
import { formatPath, type Path } from '../payload/messages.js';
import { withoutEditorKeys } from '../input/fields.js';
import {
  DEFAULT_WITHIN_MS,
  validateTestFile,
  type BotExpectation,
  type Step,
  type TestChannel,
  type TestClient,
  type TestConversation,
  type TestFile,
} from './schema.js';
import { parseDuration } from '../config/duration.js';
import { checkReferences } from './references.js';
import { readFast } from './fast-yaml.js';
import { lineFinder, pathSegments, problemOf, readText, readValue, type LineFinder } from './read-file.js';
import { substitute } from './substitute.js';

/**
 * Reading the files of `core test`: JSON or YAML (a folder gives its .yaml, .yml and .json files),
 * each checked with the file schema of src/testing/schema.ts. Every problem of every file is
 * reported at once, with the file, the line and the path (exit 2), before anything runs.
 */

/**
 * A step ready to run. Its strings are still templates: `${NAME}` is filled in as the conversation
 * runs, from its examples row and the values captured so far (src/testing/substitute.ts).
 */
export type PlannedStep =
  | { kind: 'customer'; text: string; index: number; line: number }
  | { kind: 'press'; label: string; index: number; line: number }
  | {
      kind: 'bot';
      expect: BotExpectation;
      /** How soon the answer must come after the question it answers; null: no limit but --timeout. */
      withinMs: number | null;
      /** NAME and /pattern/ of each value to capture from the answer's text. */
      capture: [string, string][];
      /** The routing the answer's hand-over must have: to one agent, or queued; null: not checked. */
      handover: Handover | null;
      index: number;
      line: number;
    }
  | { kind: 'none'; withinMs: number; index: number; line: number }
  /** An agent writes in the thread: the one named, or the one that holds it. */
  | { kind: 'agent'; text: string; agentId: bigint | null; index: number; line: number }
  /** The thread given back to the bot. */
  | { kind: 'release'; index: number; line: number };

/** What a `bot:` step expects of the routing of its answer's hand-over. */
export type Handover = { agent: bigint } | 'queued';

export interface PlannedConversation {
  /** The file as the user named it (relative to the working folder when it is inside it). */
  file: string;
  /** Its place in the file (each examples row its own): 0 for a file of one conversation. */
  index: number;
  /** Its place in the whole run, from 0. */
  ordinal: number;
  name: string;
  /** The examples row it plays (its index in `examples`), or null. */
  row: number | null;
  /** The values of the row, by key, as text. */
  values: ReadonlyMap<string, string>;
  line: number;
  channel: TestChannel;
  client: TestClient | undefined;
  /** Where it starts (`from:`): a seed (its content, read and checked, and its file) or a snapshot's name; absent, a new thread. */
  from?: { seed: Record<string, unknown>; file: string } | { snapshot: string };
  steps: PlannedStep[];
}

export interface PlannedFile {
  file: string;
  /** The name of the suite: the file's name, or its conversations' file-level name. */
  name: string;
  conversations: PlannedConversation[];
}

/** The files named on the command line, folders expanded, in order, each once. */
export async function listFiles(args: readonly string[], cwd: string): Promise<string[]> {
  const out: string[] = [];
  for (const arg of args) {
    const full = resolve(cwd, arg);
    let info;
    try {
      info = await stat(full);
    } catch (error) {
      // stat's errors carry a code (ENOENT, ENOTDIR, EACCES, ...).
      const code = (error as NodeJS.ErrnoException).code;
      throw new UsageError(code === 'ENOENT' ? `test file not found: ${arg}` : `cannot read ${arg} (${code})`, {
        hint: 'name YAML or JSON test files, or a folder of them',
      });
    }
    if (info.isDirectory()) {
      const found = (await walk(full)).map((path) => shown(path, cwd));
      if (found.length === 0) throw new UsageError(`${arg} holds no .yaml, .yml or .json file`);
      out.push(...found);
    } else out.push(shown(full, cwd));
  }
  return [...new Set(out)];
}

async function walk(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) files.push(...(await walk(path)));
    else if (/\.(ya?ml|json)$/i.test(entry.name) && !/\.schema\.json$/i.test(entry.name)) files.push(path);
  }
  return files;
}

/** A file's path relative to the working folder when it is inside it (a file is never the folder itself), else whole. */
function shown(full: string, cwd: string): string {
  const rel = relative(cwd, full);
  return !rel.startsWith('..') ? rel : full;
}

/** Reads and checks every file; throws one PayloadError listing every problem of all of them. */
export async function loadTests(files: readonly string[], cwd: string): Promise<PlannedFile[]> {
  const planned: PlannedFile[] = [];
  const problems: Problem[] = [];
  // The files with problems, counted as files: a file's name may hold a colon, as a problem's path does.
  let bad = 0;
  for (const file of files) {
    const result = await loadOne(file, cwd);
    if ('problems' in result) {
      problems.push(...result.problems);
      bad += 1;
    } else planned.push(result);
  }
  if (problems.length > 0) {
    throw new PayloadError(
      `${bad === 1 ? 'a test file is' : `${bad} test files are`} not valid (${problems.length === 1 ? '1 problem' : `${problems.length} problems`})`,
      problems,
      { hint: 'fix the files; core schema test prints the JSON Schema for editors, and docs/testing-bots.md describes the format' },
    );
  }
  let ordinal = 0;
  for (const file of planned) for (const conversation of file.conversations) conversation.ordinal = ordinal++;
  const names = new Map<string, string>();
  for (const file of planned) {
    // Two files of one name would make two suites reports cannot tell apart: the path tells them apart.
    if (names.has(file.name)) file.name = file.file;
    names.set(file.name, file.file);
  }
  return planned;
}

type Loaded = PlannedFile | { problems: Problem[] };

async function loadOne(file: string, cwd: string): Promise<Loaded> {
  const text = await readText(file, cwd);
  if (typeof text !== 'string') return text;
  const isJson = extname(file).toLowerCase() === '.json';
  // A YAML file is read fast, keeping only the lines of its collections (src/testing/fast-yaml.ts);
  // the `yaml` library's document, which gives every value's place, is parsed only when that reader
  // declines the file, for JSON (which is YAML too, so both get lines), and for the lines of problems.
  const fast = isJson ? undefined : await readFast(text);
  const lines = lineFinder(text, fast);
  const read = await readValue(file, text, isJson, fast, lines);
  if ('problems' in read) return read;
  const value = read.value;
  if (!isRecord(value)) return problemOf(file, 'must hold a mapping: name, channel and steps (see docs/testing-bots.md)', 1);
  const checked = validateTestFile(withoutEditorKeys(value));
  if (!checked.ok) return { problems: await fileProblems(file, value, checked.problems, lines) };
  return planFile(file, checked.value, lines, cwd);
}

type Source = { base: Path; named: boolean; conversation: Omit<TestConversation, 'name'> & { name?: string | undefined } };

/** A checked file's conversations, planned; a ${NAME} that nothing defines is a problem of the file. */
async function planFile(file: string, test: TestFile, lines: LineFinder, cwd: string): Promise<Loaded> {
  const { problemLine } = lines;
  const stem = basename(file).replace(/\.(ya?ml|json)$/i, '');
  // A ${NAME} problem has a path: a step's field, a row of examples or a name.
  const located = async (path: Path, message: string): Promise<Problem> => ({
    path: `${file}:${await problemLine(path)} ${formatPath(path)}`,
    message,
  });
  const sources: Source[] = test.conversations
    ? test.conversations.map((conversation, index) => ({ base: ['conversations', index], conversation, named: true }))
    : [
        {
          base: [],
          conversation: { name: test.name, from: test.from, steps: test.steps!, examples: test.examples },
          named: test.name !== undefined,
        },
      ];
  const referenceProblems = sources.flatMap(({ base, conversation, named }) =>
    checkReferences(conversation, named ? ['name'] : undefined).map((p) => ({ path: [...base, ...p.path], message: p.message })),
  );
  if (referenceProblems.length > 0) return { problems: await Promise.all(referenceProblems.map((p) => located(p.path, p.message))) };

  const conversations: PlannedConversation[] = [];
  for (const source of sources) {
    // One by one: spreading 200,000 rows into push's arguments overflows the stack.
    for (const planned of await planConversation(file, test, source, stem, lines, conversations.length)) conversations.push(planned);
  }
  // A seed is read once per file it is named in, relative to the test file, and checked with its schema.
  const seeds = new Map<string, Record<string, unknown>>();
  for (const conversation of conversations) {
    const from = (conversation as { fromSeed?: string }).fromSeed;
    if (from === undefined) continue;
    delete (conversation as { fromSeed?: string }).fromSeed;
    const path = resolve(dirname(resolve(cwd, file)), from);
    if (!seeds.has(path)) {
      const { readSeedFile } = await import('../input/seed-read.js');
      seeds.set(path, await readSeedFile(path, cwd, `${file}: from.seed`));
    }
    conversation.from = { seed: seeds.get(path)!, file: from };
  }
  return { file, name: test.conversations ? (test.name ?? stem) : stem, conversations };
}

/** One conversation of a file, or one per row of its examples, from `index` on. */
async function planConversation(
  file: string,
  test: TestFile,
  { base, conversation }: Source,
  stem: string,
  lines: LineFinder,
  index: number,
): Promise<PlannedConversation[]> {
  const steps: PlannedStep[] = [];
  for (const [i, step] of conversation.steps.entries()) steps.push(planStep(step, i, await lines.lineOf([...base, 'steps', i])));
  const from = conversation.from;
  const shared = {
    file,
    line: await lines.lineOf(base),
    channel: conversation.channel ?? test.channel ?? 'WEB',
    client: from === undefined ? (conversation.client ?? test.client) : undefined,
    steps,
    ...(from?.snapshot !== undefined ? { from: { snapshot: from.snapshot } } : from?.seed !== undefined ? { fromSeed: from.seed } : {}),
  };
  const name = conversation.name ?? test.name ?? stem;
  const rows = conversation.examples;
  if (rows === undefined) {
    // A name is a template too: `$${` in it reads `${`.
    const shown = substitute(name, new Map(), 'send');
    return [{ ...shared, index, ordinal: 0, name: shown, row: null, values: new Map() }];
  }
  const values = rows.map((row) => new Map(Object.entries(row).map(([key, value]) => [key, String(value)])));
  const names = values.map((row) => substitute(name, row, 'send'));
  // How many rows give each name, counted once: comparing each row's with every other's was
  // quadratic (40,000 rows took 10 s to load).
  const times = new Map<string, number>();
  for (const shown of names) times.set(shown, (times.get(shown) ?? 0) + 1);
  return rows.map((_, row) => {
    // A name the rows do not tell apart is followed by the row's values: `echo (word=gamma)`.
    const unique = times.get(names[row]!) === 1;
    const shown = unique ? names[row]! : `${names[row]} (${[...values[row]!].map(([key, value]) => `${key}=${value}`).join(', ')})`;
    return { ...shared, index: index + row, ordinal: 0, name: shown, row, values: values[row]! };
  });
}

/**
 * The problems of a file the schema refuses, in the order of the file. The ${NAME}s are checked too, as
 * far as the file's shape lets them be read, so that a typo in one is reported with the other problems
 * rather than only once they are fixed.
 */
async function fileProblems(
  file: string,
  value: Record<string, unknown>,
  schema: readonly Problem[],
  lines: LineFinder,
): Promise<Problem[]> {
  const found: { line: number; problem: Problem }[] = [];
  for (const p of schema) {
    const line = await lines.problemLine(pathSegments(p.path));
    found.push({ line, problem: { path: `${file}:${line}${p.path === '' ? '' : ` ${p.path}`}`, message: p.message } });
  }
  const schemaPaths = schema.map((p) => p.path);
  for (const p of looseReferenceProblems(value)) {
    const shownPath = formatPath(p.path);
    // A value the schema already refuses is not read a second time as a template.
    if (
      schemaPaths.some(
        (path) => path !== '' && (shownPath === path || shownPath.startsWith(`${path}.`) || shownPath.startsWith(`${path}[`)),
      )
    )
      continue;
    const line = await lines.problemLine(p.path);
    found.push({ line, problem: { path: `${file}:${line} ${shownPath}`, message: p.message } });
  }
  return found.sort((a, b) => a.line - b.line).map((f) => f.problem);
}

/**
 * The ${NAME} problems of a file the schema refuses, read from its raw value: each conversation whose
 * steps (and examples, when given) have the shape of a list of mappings, with only the strings where a
 * template is read. The rest of the file is the schema's to report.
 */
function looseReferenceProblems(value: Record<string, unknown>) {
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const looseStep = (raw: unknown): Step => {
    if (!isRecord(raw)) return {} as Step;
    const capture = isRecord(raw.capture)
      ? Object.fromEntries(Object.entries(raw.capture).filter((entry): entry is [string, string] => typeof entry[1] === 'string'))
      : undefined;
    const bot = raw.bot === 'none' || isRecord(raw.bot) ? raw.bot : undefined;
    return { customer: text(raw.customer), press: text(raw.press), bot, capture, agent: text(raw.agent) } as Step;
  };
  const conversations: [Path, Record<string, unknown>][] = Array.isArray(value.conversations)
    ? value.conversations.flatMap((c, index): [Path, Record<string, unknown>][] => (isRecord(c) ? [[['conversations', index], c]] : []))
    : [[[], value]];
  return conversations.flatMap(([base, raw]) => {
    if (!Array.isArray(raw.steps)) return [];
    if (raw.examples !== undefined && !(Array.isArray(raw.examples) && raw.examples.every(isRecord))) return [];
    const named = typeof raw.name === 'string';
    const conversation = {
      ...(named ? { name: raw.name as string } : {}),
      steps: raw.steps.map(looseStep),
      ...(raw.examples === undefined ? {} : { examples: raw.examples as Record<string, unknown>[] }),
    };
    return checkReferences(conversation, named ? ['name'] : undefined).map((p) => ({ path: [...base, ...p.path], message: p.message }));
  });
}

function planStep(step: Step, index: number, line: number): PlannedStep {
  if (step.customer !== undefined) return { kind: 'customer', text: step.customer, index, line };
  if (step.press !== undefined) return { kind: 'press', label: step.press, index, line };
  if (step.agent !== undefined) return { kind: 'agent', text: step.agent, agentId: step.agentId ?? null, index, line };
  if (step.release !== undefined) return { kind: 'release', index, line };
  const within = step.within === undefined ? undefined : parseDuration(String(step.within));
  if (step.bot === 'none') return { kind: 'none', withinMs: within ?? DEFAULT_WITHIN_MS, index, line };
  return {
    kind: 'bot',
    expect: step.bot!,
    withinMs: within ?? null,
    capture: Object.entries(step.capture ?? {}),
    handover: step.handover ?? null,
    index,
    line,
  };
}
