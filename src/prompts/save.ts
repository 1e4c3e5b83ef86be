import { resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { writeOutputFile } from '../output/file.js';
import { stringifyJson } from '../payload/json.js';

/**
 * Writes a payload as pretty JSON, every identifier digit for digit (docs/payloads.md,
 * "Identifiers"), so `-f FILE` can send it later. Used by `--save FILE` and the composer's "save".
 */
export async function savePayload(path: string, payload: unknown, cwd: string): Promise<string> {
  const full = resolve(cwd, path);
  try {
    await writeOutputFile(full, `${stringifyJson(payload, 2)}\n`, path, '--save');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as { code?: string }).code ?? 'error';
    const why =
      code === 'ENOENT'
        ? 'its folder does not exist'
        : code === 'EISDIR'
          ? 'it is a folder'
          : code === 'EACCES'
            ? 'permission denied'
            : code;
    throw new UsageError(`cannot write the payload to ${path}: ${why}`, {
      hint: 'give --save (or the prompt) a path in a folder you can write to',
    });
  }
  return full;
}
