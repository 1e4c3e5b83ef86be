import { baseUrlProblem } from '../../config/schema.js';
import { UsageError } from '../../errors.js';

/** The options of a command that drives a bot through a sandbox: `core test` and `core check-bot`. */
export interface SandboxTarget {
  sandbox?: string;
  botUrl?: string;
  port?: string;
}

/**
 * Checks, before anything runs, where such a command finds its sandbox: `--sandbox URL` of a running
 * one, or `--bot-url URL` (and `--port N`) for one it starts; never both, never neither.
 */
export function checkSandboxTarget(options: SandboxTarget, command: string, example: string): void {
  if (options.sandbox !== undefined && (options.botUrl !== undefined || options.port !== undefined)) {
    throw new UsageError(
      `--sandbox uses a running sandbox; --${options.botUrl !== undefined ? 'bot-url' : 'port'} is for the one ${command} starts`,
      { hint: 'give --sandbox URL alone, or --bot-url URL (and --port N) without it' },
    );
  }
  if (options.sandbox === undefined && options.botUrl === undefined) {
    throw new UsageError(`${command} needs a bot: --bot-url URL, or --sandbox URL of a running core sandbox that delivers to one`, {
      hint: example,
    });
  }
  if (options.sandbox !== undefined) {
    const problem = baseUrlProblem(options.sandbox);
    if (problem !== undefined)
      throw new UsageError(`--sandbox: ${problem}`, { hint: 'the base URL core sandbox prints, such as http://127.0.0.1:8080' });
  }
}
