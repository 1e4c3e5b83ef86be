import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { onTestFinished } from 'vitest';
import { parseJson } from '../../src/payload/json.js';
import { startRecordingServer, type RecordedRequest, type ScriptedAnswer } from '../helpers/recording-server.js';
import { baseEnv } from '../helpers/run.js';
import { call, replyBody, sandbox, type TestSandbox } from '../sandbox/helpers.js';

/**
 * A platform for `core test` to play against: an in-process sandbox on loopback delivering to a bot
 * on loopback (the recording server) whose webhook handler does what the test's script says with each
 * customer message: answer through the API (at once or later), or refuse the webhook.
 */

export interface Message {
  questionId: bigint;
  questionIndex: bigint;
  sessionId: string;
  coreClientId: bigint;
  clientId: string | null;
  text: string;
  type: string;
  channel: string;
  quickReply: Record<string, unknown> | null;
  listItem: { identifier: string; title: string } | null;
}

export const messageOf = (request: RecordedRequest) => (parseJson(request.text) as { message: Message }).message;

export async function platform(
  handle: (message: Message, sb: TestSandbox) => ScriptedAnswer | Promise<unknown>,
  options: Parameters<typeof sandbox>[0] = {},
) {
  let sb!: TestSandbox;
  const bot = await startRecordingServer((request) => {
    const handled = handle(messageOf(request), sb);
    return handled instanceof Promise ? { status: 200, until: handled } : handled;
  });
  onTestFinished(() => bot.close());
  sb = await sandbox({ botUrl: `${bot.url}/webhook`, webhookBackoffMs: 0, ...options });
  return { sb, bot, env: baseEnv() };
}

/** The bot answers the message through the API, addressed as chatbot rule 2 wants. */
export function reply(sb: TestSandbox, message: Message, fields: Record<string, unknown> = {}) {
  return call(sb, '/api/v1/chatbot', {
    body: replyBody({
      coreClientId: undefined,
      ...(message.type === 'EMAIL'
        ? { sessionId: message.sessionId, questionIndex: message.questionIndex }
        : { questionId: message.questionId }),
      text: `You said: ${message.text}`,
      ...fields,
    }),
  });
}

/** Writes test files into a new folder and returns it; `files` maps a relative path to its text. */
export function testFolder(files: Record<string, string>): string {
  const folder = mkdtempSync(join(tmpdir(), 'core-test-files-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(folder, name)), { recursive: true });
    writeFileSync(join(folder, name), text);
  }
  return folder;
}
