import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generatedDocs } from '../../scripts/docs/generate.js';
import { repoRoot } from '../helpers/run.js';

/**
 * The generated files under docs/ (JSON Schemas, OpenAPI, command reference) must match what the code
 * generates now. With UPDATE_DOCS=1 (node scripts/generate-docs.mjs) this file writes them instead.
 */

const REGENERATE = 'run `node scripts/generate-docs.mjs` and commit the result';
const update = process.env.UPDATE_DOCS === '1';
/** The folders that hold only generated files, and the extension of those files. */
const GENERATED_FOLDERS = [
  ['docs/schemas', '.json'],
  ['docs/commands', '.md'],
  ['docs/man', '.1'],
] as const;

let files: Map<string, string>;
beforeAll(async () => {
  files = await generatedDocs(repoRoot);
  if (update) {
    for (const [folder, extension] of GENERATED_FOLDERS) {
      for (const name of existing(folder, extension)) {
        if (!files.has(`${folder}/${name}`)) rmSync(join(repoRoot, folder, name));
      }
    }
    for (const [path, content] of files) {
      mkdirSync(dirname(join(repoRoot, path)), { recursive: true });
      writeFileSync(join(repoRoot, path), content);
    }
  }
});

function existing(folder: string, extension: string): string[] {
  const full = join(repoRoot, folder);
  return existsSync(full) ? readdirSync(full).filter((name) => name.endsWith(extension)) : [];
}

describe('the generated docs', () => {
  it('are all committed and match the code', () => {
    const outdated = [...files].filter(([path, content]) => {
      const full = join(repoRoot, path);
      return !existsSync(full) || readFileSync(full, 'utf8') !== content;
    });
    expect(outdated.map(([path]) => path), `out of date: ${REGENERATE}`).toEqual([]);
  });

  it.each([
    ['docs/schemas/reply.schema.json'],
    ['docs/schemas/greet.schema.json'],
    ['docs/schemas/reason.schema.json'],
    ['docs/schemas/config.schema.json'],
    ['docs/openapi.json'],
    ['docs/commands/README.md'],
    ['docs/man/core.1'],
  ])('include %s, which matches the code line by line', (path) => {
    const committed = existsSync(join(repoRoot, path)) ? readFileSync(join(repoRoot, path), 'utf8') : '';
    expect(committed, `${path} is out of date: ${REGENERATE}`).toBe(files.get(path));
  });

  it('leave no page or schema behind for a command or payload that is gone', () => {
    const stale = GENERATED_FOLDERS.flatMap(([folder, extension]) =>
      existing(folder, extension)
        .map((name) => `${folder}/${name}`)
        .filter((path) => !files.has(path)),
    );
    expect(stale, `stale generated files: ${REGENERATE}`).toEqual([]);
  });

  it('give every command and subcommand a page', () => {
    for (const page of ['reply', 'greet', 'reason', 'reason-update', 'sandbox', 'config', 'config-show', 'config-check', 'config-use', 'config-path', 'config-init', 'schema', 'completion', 'test']) {
      expect(files.has(`docs/commands/${page}.md`), page).toBe(true);
    }
  });
});
