import type { Settings } from '../config/index.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { registerKnownSecrets } from '../secrets.js';
import type { GlobalOptions } from './definition.js';

/** The effective settings for a command: global flags, --timeout, --ca-file, environment, profile. */
export function loadCommandSettings(
  options: { global: GlobalOptions; timeout?: string; caFile?: string },
  ctx: Context,
): Promise<Settings> {
  return ctx.settings({
    config: options.global.config,
    profile: options.global.profile,
    baseUrl: options.global.baseUrl,
    tenant: options.global.tenant,
    timeout: options.timeout,
    caFile: options.caFile,
  });
}

/**
 * The settings of a command that sends, with every secret known without running a command
 * registered at once (src/secrets.ts): the tokens from the environment or a literal, and the
 * profile's header values. So no message printed before the send (a payload rule broken, a warning
 * quoting a field) can show one; a token command runs only for the send.
 */
export async function loadSendSettings(
  options: { global: GlobalOptions; timeout?: string; caFile?: string },
  ctx: Context,
): Promise<Settings> {
  const settings = await loadCommandSettings(options, ctx);
  registerKnownSecrets(settings, ctx);
  return settings;
}

/**
 * Prompts need a terminal. Without one an inquirer prompt waits forever on an idle pipe, so `-i`
 * refuses at once and names the flags to pass instead.
 */
export function requireTerminal(ctx: Context, command: string, instead: string): void {
  if (!ctx.streams.stdin.isTTY) {
    throw new UsageError(`${command} -i needs a terminal, and standard input is not one`, {
      hint: `pass the payload as flags instead: ${instead}`,
    });
  }
}
