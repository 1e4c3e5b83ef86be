import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { PayloadError, UsageError } from '../errors.js';
import { SCHEMA_KEY } from './fields.js';
import { decode, parseText } from './files.js';
import { validateSeedFile } from '../payload/seed.js';

/**
 * A seed file (docs/sandbox.md, "Fixtures"; `core schema seed`) read for `core sandbox --seed FILE`,
 * `core sandbox seed FILE` and `core test`'s `from: {seed: FILE}`: YAML or JSON, checked with its
 * schema, every problem named by its path in the file. Returns the content as read (identifiers
 * exact, without the editor's `$schema`), which the sandbox checks again and applies.
 */
export async function readSeedFile(file: string, cwd: string, label: string): Promise<Record<string, unknown>> {
  const path = resolve(cwd, file);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`${label}: cannot read ${file}${code ? ` (${code})` : ''}`, { cause: error });
  }
  const name = `${label}: ${file}`;
  const data = await parseText(decode(bytes, name), name, 'auto');
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new UsageError(`${label}: ${file} must hold an object with a list of tenants`, {
      hint: 'write tenants: [{clients: [{threads: [{channel: EMAIL, steps: [{customer: Hello}]}]}]}] (see core schema seed)',
    });
  }
  const { [SCHEMA_KEY]: _schema, ...rest } = data as Record<string, unknown>;
  const validated = validateSeedFile(rest);
  if (!validated.ok) {
    const problems = validated.problems;
    throw new PayloadError(`${label}: ${file} holds ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}`, problems, {
      hint: 'fix the seed; core schema seed prints its JSON Schema, docs/sandbox.md "Fixtures" explains it',
    });
  }
  return rest;
}
