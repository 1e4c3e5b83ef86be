import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSource, type BatchSource } from '../../src/batch/source.js';
import { InterruptedError } from '../../src/errors.js';
import { createContext } from '../../src/context.js';
import { memoryStreams } from '../helpers/streams.js';

/**
 * `-f` given a named pipe (`core reason update -f <(generate-reasons)`, a FIFO): it can be read only
 * once, so it is copied as standard input is, and both passes read the copy (src/batch/source.ts).
 * Making a FIFO takes `mkfifo`, a child process: so this file is not in the unit tier.
 */

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

async function codesOf(source: BatchSource): Promise<unknown[]> {
  const codes: unknown[] = [];
  for await (const item of source.items()) codes.push((item.value as { code: string }).code);
  return codes;
}

describe('-f with a named pipe', () => {
  it('reads it once into a copy, so the second pass sees the same reasons as the first', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'core-fifo-'));
    folders.push(folder);
    const fifo = join(folder, 'reasons.ndjson');
    execFileSync('mkfifo', [fifo]);
    // Opening a FIFO to write waits for its reader: the writer finishes once the copy has read it all.
    const written = writeFile(fifo, '{"code":"A"}\n{"code":"B"}\n');
    const source = await openSource(fifo, createContext({ streams: memoryStreams().streams, env: {}, cwd: folder }));
    await written;
    try {
      expect(await codesOf(source)).toEqual(['A', 'B']);
      // Read from the pipe itself, a second pass would wait for a writer that never comes.
      expect(await codesOf(source)).toEqual(['A', 'B']);
    } finally {
      await source.close();
    }
  });

  it('stops at a Ctrl-C while no one has opened the pipe to write: nothing is sent', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'core-fifo-'));
    folders.push(folder);
    const fifo = join(folder, 'reasons.ndjson');
    execFileSync('mkfifo', [fifo]);
    const controller = new AbortController();
    const opening = openSource(fifo, createContext({ streams: memoryStreams().streams, env: {}, cwd: folder, signal: controller.signal }));
    setImmediate(() => controller.abort());
    const error = await opening.then(
      () => new Error('opened'),
      (reason: unknown) => reason as Error,
    );
    expect(error).toBeInstanceOf(InterruptedError);
    expect(error.message).toBe(`cancelled while reading ${fifo}; nothing sent`);
  });
});
