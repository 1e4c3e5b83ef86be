import { xmlAttr } from './xml.js';

/**
 * What could not be reached at all, so nothing could be tested: the bot (every delivery failed to
 * connect, and the bot made no request), or the sandbox at --sandbox (no answer to its first
 * request). Every report of `core test` and `core check-bot` says so in place of the results, and
 * the run exits 6 (docs/testing-bots.md, "Exit codes"; docs/check-bot.md, "Reports").
 */
export interface Unreachable {
  /** `signature`: the bot was reached, but refused every correctly signed delivery (401 or 403), so nothing could be tested either. */
  kind: 'bot' | 'sandbox' | 'signature';
  /** One line, as stderr shows it. */
  message: string;
}

const KINDS = {
  bot: { code: 'EBOTUNREACHABLE', junitType: 'BotUnreachable', urlKey: 'botUrl' },
  sandbox: { code: 'ESANDBOXUNREACHABLE', junitType: 'SandboxUnreachable', urlKey: 'sandboxUrl' },
  signature: { code: 'EBOTREFUSESSIGNATURE', junitType: 'BotRefusesSignature', urlKey: 'botUrl' },
} as const;

/**
 * The JSON reports' `error` (docs/json-output.md): `{code, message, botUrl}` for the bot,
 * `{code, message, sandboxUrl}` for the sandbox, `url` being the one that could not be reached.
 */
export function unreachableJson(unreachable: Unreachable, url: string | null): Record<string, string | null> {
  const kind = KINDS[unreachable.kind];
  return { code: kind.code, message: unreachable.message, [kind.urlKey]: url };
}

/** The JUnit `<error>` every test case carries, without its indentation. */
export function unreachableJunit(unreachable: Unreachable): string {
  return `<error message="${xmlAttr(unreachable.message)}" type="${KINDS[unreachable.kind].junitType}"/>`;
}
