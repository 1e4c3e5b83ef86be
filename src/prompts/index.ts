import type { Limits } from '../payload/index.js';
import { makeStyle } from '../output/style.js';
import type { ComposeEnv } from './composer.js';
import type { Prompter } from './prompter.js';

/**
 * The interactive composer (`-i`), loaded only by the commands that prompt. Its parts validate every
 * answer with the payload schemas of src/payload/.
 */
export { composeGreeting, GREETING_ORDER } from './greeting.js';
export { composeReply, REPLY_ORDER } from './reply.js';
export { composeReason, REASON_ORDER } from './reason.js';
export { createPrompter, isPromptExit, type Prompter } from './prompter.js';
export { savePayload } from './save.js';
export type { ComposeEnv, Draft, DraftCheck } from './composer.js';

/** What the composer needs besides the draft: the prompts, their colours, the profile's limits. */
export function composerEnv(prompter: Prompter, limits: Limits): ComposeEnv {
  return { prompter, style: makeStyle(prompter.color, prompter.glyphs), limits };
}

/** The composer's first menu choice, in the words of what the command's flags make it do. */
export function finishLabel(options: { dryRun: boolean; curl: boolean; save?: string | undefined }): string {
  if (options.dryRun) {
    return options.save !== undefined
      ? `Save it to ${options.save} (--dry-run: send nothing)`
      : 'Show the request (--dry-run: send nothing)';
  }
  if (options.curl) return 'Print the curl command (send nothing)';
  return options.save !== undefined ? `Send it (and save it to ${options.save})` : 'Send it';
}
