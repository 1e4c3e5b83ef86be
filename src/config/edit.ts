import { chmod, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, UsageError } from '../errors.js';
import { cjs } from '../interop.js';
import { validateConfig } from './schema.js';

/**
 * Changing a config file in place, for `core config use` and `core config init`: YAML through the
 * yaml library's document model, so comments, blank lines and the order of keys stay as the user
 * wrote them; JSON (and the `core` key of package.json) with the file's own indentation and key
 * order. A JavaScript config is code, and is refused with a hint to edit it by hand. The result is
 * checked with the schema that reads it, and written in one rename, keeping the file's mode.
 */

export type EditableFormat = 'yaml' | 'json' | 'package.json';

/** A config file opened for editing: its object, and the changes laid on it as they are made. */
export interface EditableConfig {
  readonly file: string;
  readonly format: EditableFormat;
  /** The profiles' names, in file order. */
  profiles(): string[];
  defaultProfile(): string | undefined;
  setDefaultProfile(name: string): void;
  /** Adds the profile, or replaces the one of that name (keeping its place). */
  setProfile(name: string, profile: Record<string, unknown>): void;
  /** The file's new text. */
  render(): string;
}

/** How a config file is written: YAML, JSON or package.json; a JavaScript one cannot be rewritten. */
export function formatOf(file: string, text: string): EditableFormat {
  const base = path.basename(file);
  if (/\.(c|m)?js$/.test(base)) {
    throw new UsageError(`${file} is JavaScript, which core does not rewrite`, {
      hint: 'edit it by hand (set defaultProfile, or add the profile under profiles)',
    });
  }
  if (base === 'package.json') return 'package.json';
  if (base.endsWith('.json')) return 'json';
  if (/\.ya?ml$/.test(base)) return 'yaml';
  // `.corerc` and `config` may hold either: JSON starts with a brace.
  return /^\s*\{/.test(text) ? 'json' : 'yaml';
}

export async function openEditable(file: string): Promise<EditableConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read the config file ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const format = formatOf(file, text);
  return format === 'yaml' ? yamlConfig(file, text) : jsonConfig(file, text, format);
}

async function yamlConfig(file: string, text: string): Promise<EditableConfig> {
  const YAML = cjs(await import('yaml'), 'parseDocument');
  // The edits are made on the text itself where the change is local (a value replaced, a line or a
  // block inserted), so everything else stays byte for byte; the document model, which renders the
  // whole file again, is the fallback for the rest (a profile replaced, an empty or flow mapping).
  let source = text;
  const parse = () => {
    const doc = YAML.parseDocument(source);
    if (doc.errors.length > 0) throw new ConfigError(`${file} is not valid YAML: ${doc.errors[0]!.message.split('\n')[0]}`);
    if (doc.contents === null) doc.contents = doc.createNode({}) as never;
    if (!YAML.isMap(doc.contents)) throw new ConfigError(`${file} does not hold a mapping of settings`);
    return doc as typeof doc & { contents: import('yaml').YAMLMap };
  };
  const keyOf = (pair: import('yaml').Pair): string => String(YAML.isScalar(pair.key) ? pair.key.value : pair.key);
  const scalarText = (value: string) => YAML.stringify(value).trimEnd();
  parse();
  return {
    file,
    format: 'yaml',
    profiles: () => {
      const node = parse().get('profiles');
      return YAML.isMap(node) ? node.items.map(keyOf) : [];
    },
    defaultProfile: () => {
      const value = parse().get('defaultProfile');
      return typeof value === 'string' ? value : undefined;
    },
    setDefaultProfile(name) {
      const doc = parse();
      const pair = doc.contents.items.find((item) => keyOf(item) === 'defaultProfile');
      const range = pair && YAML.isScalar(pair.value) ? pair.value.range : undefined;
      if (range) {
        source = `${source.slice(0, range[0])}${scalarText(name)}${source.slice(range[1])}`;
        return;
      }
      const first = doc.contents.items[0];
      const firstKey = first && YAML.isScalar(first.key) ? first.key.range : undefined;
      if (pair === undefined && !doc.contents.flow && firstKey) {
        // A new key goes first, where a reader looks for it, after the comments that open the file.
        const at = lineStart(source, firstKey[0]);
        source = `${source.slice(0, at)}defaultProfile: ${scalarText(name)}\n${source.slice(at)}`;
        return;
      }
      doc.set('defaultProfile', name);
      source = doc.toString();
    },
    setProfile(name, profile) {
      const doc = parse();
      const profiles = doc.get('profiles');
      if (YAML.isMap(profiles) && !profiles.flow && !profiles.items.some((item) => keyOf(item) === name)) {
        const last = profiles.items.at(-1);
        const lastKey = last && YAML.isScalar(last.key) ? last.key.range : undefined;
        const valueEnd = last ? contentEnd(YAML, last) : undefined;
        if (lastKey && valueEnd !== undefined) {
          // After the last profile's own lines, indented as the profiles are.
          const indent = source.slice(lineStart(source, lastKey[0]), lastKey[0]);
          const block = YAML.stringify({ [name]: profile })
            .trimEnd()
            .split('\n')
            .map((line) => `${indent}${line}`)
            .join('\n');
          if (!source.endsWith('\n')) source += '\n';
          const at = lineEnd(source, valueEnd);
          source = `${source.slice(0, at)}${block}\n${source.slice(at)}`;
          return;
        }
      }
      if (!YAML.isMap(profiles)) doc.set('profiles', doc.createNode({}));
      doc.setIn(['profiles', name], doc.createNode(profile, { flow: false }));
      source = doc.toString();
    },
    render: () => source,
  };
}

/**
 * Where the text of a pair ends: its last scalar or flow collection. A block collection's own range
 * runs on over the comments that follow it, which belong after anything inserted.
 */
function contentEnd(YAML: typeof import('yaml'), pair: import('yaml').Pair): number | undefined {
  let node: unknown = pair.value ?? pair.key;
  for (;;) {
    if ((YAML.isMap(node) || YAML.isSeq(node)) && !node.flow) {
      const last = node.items.at(-1) as unknown;
      if (last === undefined) return node.range?.[1];
      node = YAML.isPair(last) ? (last.value ?? last.key) : last;
      continue;
    }
    return (node as { range?: [number, number, number] } | null)?.range?.[1];
  }
}

/** Where the line holding `at` starts. */
function lineStart(text: string, at: number): number {
  return text.lastIndexOf('\n', at - 1) + 1;
}

/** Where the line after the one holding `at` starts (the end of the text if there is none). */
function lineEnd(text: string, at: number): number {
  const newline = text.indexOf('\n', at);
  return newline === -1 ? text.length : newline + 1;
}

function jsonConfig(file: string, text: string, format: 'json' | 'package.json'): EditableConfig {
  let whole: Record<string, unknown>;
  try {
    whole = JSON.parse(text) as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof whole !== 'object' || whole === null || Array.isArray(whole))
    throw new ConfigError(`${file} does not hold an object of settings`);
  if (format === 'package.json' && (typeof whole.core !== 'object' || whole.core === null)) whole.core = {};
  const config = (format === 'package.json' ? whole.core : whole) as Record<string, unknown>;
  const indent = /^\{\s*\n([ \t]+)"/.exec(text)?.[1] ?? '  ';
  const profiles = () =>
    typeof config.profiles === 'object' && config.profiles !== null ? (config.profiles as Record<string, unknown>) : undefined;
  return {
    file,
    format,
    profiles: () => Object.keys(profiles() ?? {}),
    defaultProfile: () => (typeof config.defaultProfile === 'string' ? config.defaultProfile : undefined),
    setDefaultProfile(name) {
      if ('defaultProfile' in config) config.defaultProfile = name;
      else {
        // A new key goes first: rebuild the object with it in front.
        const rest = { ...config };
        for (const key of Object.keys(config)) delete config[key];
        Object.assign(config, { defaultProfile: name, ...rest });
      }
    },
    setProfile(name, profile) {
      if (profiles() === undefined) config.profiles = {};
      profiles()![name] = profile;
    },
    render: () => `${JSON.stringify(whole, null, indent)}\n`,
  };
}

/**
 * Writes the edited file: checked first with the schema that reads it (one source of truth for the
 * rules), then written to a temporary file beside it and renamed over it, so a failure leaves the old
 * file whole. The mode is kept, or made 0600 when `privateMode` (the file now holds a literal token).
 */
export async function saveEditable(config: EditableConfig, options: { privateMode?: boolean } = {}): Promise<void> {
  const text = config.render();
  const check = config.format === 'yaml' ? await reparseYaml(text) : (JSON.parse(text) as Record<string, unknown>);
  const { problems } = validateConfig(config.format === 'package.json' ? check.core : check);
  if (problems.length > 0) throw new ConfigError(`the change would make ${config.file} invalid`, { problems });
  let mode = 0o600;
  try {
    mode = (await stat(config.file)).mode & 0o777;
  } catch {
    // Gone since it was read: written new, private.
  }
  if (options.privateMode) mode = 0o600;
  const temporary = `${config.file}.${process.pid}.tmp`;
  try {
    await writeFile(temporary, text, { flag: 'wx', mode });
    await chmod(temporary, mode);
    await rename(temporary, config.file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw new ConfigError(`cannot write the config file ${config.file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, {
      hint: 'check that the file and its folder can be written to',
    });
  }
}

async function reparseYaml(text: string): Promise<Record<string, unknown>> {
  const YAML = cjs(await import('yaml'), 'parse');
  return (YAML.parse(text) ?? {}) as Record<string, unknown>;
}
