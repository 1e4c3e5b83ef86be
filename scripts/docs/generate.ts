import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import type { Command } from 'commander';
import { describeTree, type CommandSpec } from '../../src/commands/completion/tree.js';
import { createContext } from '../../src/context.js';
import { parseJson, stringifyJson } from '../../src/payload/json.js';
import { buildProgram } from '../../src/program.js';
import { formatJson, jsonSchemaOf } from '../../src/schema/json-schema.js';
import { SCHEMA_KINDS } from '../../src/schema/kinds.js';
import { version } from '../../src/version.js';
import { openApiDocument } from './openapi.js';
import { manPage } from './man.js';
import { referencePages } from './reference.js';

/**
 * The generators of the committed docs: not part of the program (core never prints them), so they
 * live here, beside the script that runs them, and read the program from above without the program
 * ever importing them.
 *
 * Every generated file under docs/, by its path from the repository root: the JSON Schemas, the
 * OpenAPI description and the command reference. test/docs/generated.test.ts compares them with the
 * committed files, and writes them when UPDATE_DOCS=1 (which `node scripts/generate-docs.mjs` sets).
 * The example payloads under docs/examples are written by hand; the OpenAPI document shows three of
 * them, so they are read from `repoRoot`.
 */
export async function generatedDocs(repoRoot: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const kind of SCHEMA_KINDS) files.set(`docs/schemas/${kind}.schema.json`, formatJson(jsonSchemaOf(kind)));

  const example = async (name: string) => parseJson(await readFile(join(repoRoot, 'docs/examples', name), 'utf8'));
  const openapi = openApiDocument({
    version: version(),
    examples: { reply: await example('reply.json'), greet: await example('greeting.json'), reason: await example('reason.json') },
    messageExample: await example('message.json'),
  });
  // The examples are read with every integer as a bigint, so they are written back the same way.
  files.set('docs/openapi.json', `${stringifyJson(openapi, 2)}\n`);

  const { root, afterHelp } = await commandTree();
  for (const [name, page] of referencePages(root, afterHelp)) files.set(`docs/commands/${name}`, page);
  files.set('docs/man/core.1', manPage(root, afterHelp, { version: version(), date: await releaseMonth(repoRoot) }));
  return files;
}

/** The month of the latest dated release in CHANGELOG.md, such as "November 2026": the man page's date. */
async function releaseMonth(repoRoot: string): Promise<string> {
  const changelog = await readFile(join(repoRoot, 'CHANGELOG.md'), 'utf8');
  const date = /^## \[[^\]]+\] - (\d{4})-(\d{2})-\d{2}$/m.exec(changelog);
  if (!date) throw new Error('CHANGELOG.md has no dated release (## [x.y.z] - YYYY-MM-DD)');
  const month = new Date(Date.UTC(Number(date[1]), Number(date[2]) - 1, 1));
  return month.toLocaleDateString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });
}

/**
 * The command tree of a program built as `main` builds it, and a way to read the text each command
 * prints after commander's help (its examples): commander keeps that text only as a help event, so
 * the help is printed into a buffer and commander's own part cut off.
 */
export async function commandTree(): Promise<{ root: CommandSpec; afterHelp: (spec: CommandSpec) => string }> {
  let captured = '';
  // Written synchronously, so the help is in `captured` as soon as outputHelp returns.
  const stdout = new Writable({
    write(chunk: Buffer, _encoding, done) {
      captured += chunk.toString();
      done();
    },
  });
  const ctx = createContext({
    streams: { stdout, stderr: new PassThrough(), stdin: new PassThrough() },
    env: { NO_COLOR: '1' },
    cwd: process.cwd(),
  });
  const program = await buildProgram({ ctx, exitCode: undefined });
  const afterHelp = (spec: CommandSpec): string => {
    const command: Command = spec.command;
    captured = '';
    command.outputHelp();
    const own = command.helpInformation();
    const at = captured.indexOf(own);
    return at === -1 ? '' : captured.slice(at + own.length);
  };
  return { root: describeTree(program), afterHelp };
}
