import { describe, expect, it } from 'vitest';
import { parseSandboxFlags } from '../../src/platform/flags.js';
import { runInProcess } from '../helpers/run.js';
import { platform, reply, testFolder, type Message } from '../test-command/platform.js';
import { askedQuestion, call, replyBody, sandbox } from './helpers.js';

/**
 * `--large-ids` (docs/sandbox.md, "State"): every coreClientId and questionId the sandbox makes is
 * above 2^53, so a bot that reads them with JSON.parse (which rounds them) fails its first answer,
 * in `core test` as in `core check-bot`'s ids.precision.
 */

const TWO_53 = 2n ** 53n;

describe('a sandbox with large ids', () => {
  it.each([
    { largeIds: false, coreClientId: 1001n, questionId: 5001n },
    { largeIds: true, coreClientId: TWO_53 + 1001n, questionId: TWO_53 + 5001n },
  ])('with largeIds $largeIds makes its first client $coreClientId and its first question $questionId', async (ids) => {
    const sb = await sandbox({ largeIds: ids.largeIds });
    const first = await askedQuestion(sb);
    expect([first.coreClientId, first.questionId]).toEqual([ids.coreClientId, ids.questionId]);
    const second = await askedQuestion(sb);
    expect([second.coreClientId, second.questionId]).toEqual([ids.coreClientId + 1n, ids.questionId + 1n]);
  });

  it('takes an answer naming the id exactly, and refuses the id as JSON.parse rounds it', async () => {
    const sb = await sandbox({ largeIds: true });
    const asked = await askedQuestion(sb);
    expect(asked.questionId).toBe(9007199254745993n);
    const rounded = await call(sb, '/api/v1/chatbot', { body: replyBody({ questionId: BigInt(Number(asked.questionId)) }) });
    expect(rounded.status).toBe(404);
    const exact = await call(sb, '/api/v1/chatbot', { body: replyBody({ questionId: asked.questionId }) });
    expect(exact.status).toBe(200);
  });

  it('is what --large-ids asks for, and nothing else does', async () => {
    expect(await parseSandboxFlags({ largeIds: true }, process.cwd())).toMatchObject({ largeIds: true });
    expect(await parseSandboxFlags({}, process.cwd())).not.toHaveProperty('largeIds');
  });
});

describe('core test against a bot that reads ids with JSON.parse', () => {
  /** Answers by the questionId as a double reads it: exact below 2^53, rounded above. */
  const doubles = (message: Message, sb: Parameters<typeof reply>[0]) =>
    reply(sb, message, { questionId: BigInt(Number(message.questionId)) });
  const file = { 'a.yaml': 'steps:\n  - customer: Hi\n  - bot: {text: /Hi/}\n' };

  it.each([
    { largeIds: false, code: 0 },
    { largeIds: true, code: 3 },
  ])('with largeIds $largeIds exits $code', async ({ largeIds, code }) => {
    const { sb, env } = await platform(doubles, { largeIds });
    const result = await runInProcess(['test', 'a.yaml', '--sandbox', sb.url, '--timeout', '5s'], { env, cwd: testFolder(file) });
    expect(result.code, result.stderr).toBe(code);
    if (largeIds) expect(result.stdout).toMatch(/404: unknown question\): no question with questionId 9007199254745992 /);
  });

  it('refuses --large-ids with --sandbox, which names a sandbox started without it', async () => {
    const result = await runInProcess(['test', 'a.yaml', '--sandbox', 'http://127.0.0.1:9', '--large-ids'], { cwd: testFolder(file) });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--sandbox uses a running sandbox; --large-ids is for the one core test starts');
  });
});
