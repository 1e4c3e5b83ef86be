import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context } from '../../context.js';
import { CoreError, ExitCode } from '../../errors.js';
import { BOT_FILES, type BotLanguage } from './languages.js';

/**
 * `core example bot`: prints the example bot of docs/examples/bot/ in the language asked for, as the
 * package ships it, so the bot a user starts from is the one the package's tests run against `core
 * check-bot`: never a second copy that could drift.
 */

export interface ExampleBotOptions {
  lang: BotLanguage;
}

export async function runExampleBot(options: ExampleBotOptions, ctx: Context): Promise<number> {
  const file = join(packageRoot(), 'docs', 'examples', 'bot', BOT_FILES[options.lang]);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CoreError(
      `the example bot ${file} cannot be read${code ? ` (${code})` : ''}: the installation of core is incomplete`,
      ExitCode.internal,
      'EINSTALL',
      {
        hint: 'reinstall core',
        cause: error,
      },
    );
  }
  ctx.out(text);
  return ExitCode.ok;
}

/**
 * The folder of core's package.json: above this module (src/commands/example/ in the sources,
 * dist/ in the bundle, whose own package.json only says its files are CommonJS).
 */
function packageRoot(): string {
  let folder = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(folder, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'core-cli') return folder;
    const parent = dirname(folder);
    if (parent === folder) return dirname(fileURLToPath(import.meta.url));
    folder = parent;
  }
}
