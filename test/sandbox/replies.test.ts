import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/payload/json.js';
import {
  askedQuestion,
  call,
  customerSays,
  errorMessage,
  messages,
  paths,
  replyBody,
  sandbox,
  sendGreeting,
  sendReply,
  startConversation,
} from './helpers.js';

describe('the sandbox validates bodies with the payload schemas', () => {
  it('answers 400 listing every problem as "path: message; path: message"', async () => {
    const sb = await sandbox();
    const body = { answerId: 'a-1', coreClientId: 5n, quickReplies: [{ type: 'BUTTON', text: 'x'.repeat(4001) }] };
    const result = await sendReply(sb, body);
    expect(result.status).toBe(400);
    const message = errorMessage(result);
    const listed = message.split('; ');
    expect(listed.length).toBeGreaterThanOrEqual(3);
    for (const path of ['text', 'quickReplies[0].type', 'quickReplies[0].text']) {
      expect(listed.some((entry) => entry.startsWith(`${path}: `))).toBe(true);
    }
    expect(await messages(sb)).toEqual([]);
    expect(sb.lastApiLog()).toMatch(/ 400 \S+ invalid: /);
  });

  it.each([
    { name: 'a bot answer without text or formattedText', path: paths.reply, body: { answerId: 'x', coreClientId: 1n } },
    { name: 'a greeting without clientId or coreClientId', path: paths.greet, body: { text: 'Hello' } },
    { name: 'a greeting without text', path: paths.greet, body: { coreClientId: 1n } },
  ])('answers 400 to $name', async ({ path, body }) => {
    const sb = await sandbox();
    const result = await call(sb, path, { body });
    expect(result.status).toBe(400);
    expect(errorMessage(result)).not.toBe('');
  });

  it.each([
    { name: 'is not JSON', body: '{"text": "Hi",' },
    { name: 'is empty', body: '' },
  ])('answers 400 when the body $name', async ({ body }) => {
    const sb = await sandbox();
    const result = await sendReply(sb, body);
    expect(result.status).toBe(400);
    expect(errorMessage(result)).toMatch(/not valid JSON/);
  });
});

// An identifier whose written digits do not survive (1.9999999999999999 reads as 2) is refused as
// core reply refuses it (test/payload/inexact.test.ts): taken as 2, the answer would go to client 2.
describe('an identifier written with digits a number cannot keep', () => {
  it.each(['1.9999999999999999', '5001.0000000000000001'])(
    '%s is answered 400 naming what was written, and nothing is delivered',
    async (id) => {
      const sb = await sandbox();
      const result = await call(sb, paths.reply, { body: `{"answerId": "a-1", "text": "Hi", "coreClientId": ${id}}` });
      expect(result.status).toBe(400);
      expect(errorMessage(result)).toBe(
        `coreClientId: expected an integer from 0 to 9,223,372,036,854,775,807, got ${id} (which reads as ${Number(id)}: a number keeps 15 to 17 digits); write the identifier in plain digits`,
      );
      expect(await messages(sb)).toEqual([]);
    },
  );
});

describe('answerId de-duplication (chatbot rule 6)', () => {
  it('answers 200 to a repeated answerId but does not deliver it, and logs why', async () => {
    const sb = await sandbox();
    const body = replyBody({ answerId: 'answer-1' });
    expect((await sendReply(sb, body)).status).toBe(200);
    expect((await sendReply(sb, { ...body, text: 'Different text, same answerId' })).status).toBe(200);

    const seen = await messages(sb);
    expect(seen.map((m) => [m.answerId, m.delivered, m.notDelivered])).toEqual([
      ['answer-1', true, null],
      ['answer-1', false, 'duplicate answerId'],
    ]);
    expect(sb.lastApiLog()).toMatch(/ 200 \S+ duplicate answerId, not delivered answerId=answer-1$/);
  });

  it('delivers each of 50 distinct answerIds sent in parallel exactly once', async () => {
    const sb = await sandbox();
    const bodies = Array.from({ length: 50 }, (_, i) => replyBody({ answerId: `parallel-${i}` }));
    const results = await Promise.all(bodies.map((body) => sendReply(sb, body)));
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(200));

    const delivered = (await messages(sb)).filter((m) => m.delivered);
    expect(delivered).toHaveLength(50);
    expect(new Set(delivered.map((m) => m.answerId)).size).toBe(50);
  });

  it('delivers one of 20 parallel requests that share an answerId', async () => {
    const sb = await sandbox();
    const results = await Promise.all(Array.from({ length: 20 }, () => sendReply(sb, replyBody({ answerId: 'same-answer' }))));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));

    const seen = await messages(sb);
    expect(seen).toHaveLength(20);
    expect(seen.filter((m) => m.delivered)).toHaveLength(1);
    expect(seen.filter((m) => m.notDelivered === 'duplicate answerId')).toHaveLength(19);
  });

  it('lets an answer rejected as invalid be sent again under the same answerId', async () => {
    const sb = await sandbox();
    expect((await sendReply(sb, { answerId: 'fix-me', coreClientId: 1n })).status).toBe(400);
    expect((await sendReply(sb, replyBody({ answerId: 'fix-me' }))).status).toBe(200);
    expect((await messages(sb)).map((m) => m.delivered)).toEqual([true]);
  });
});

describe('a second answer to an answered question (chatbot rule 7)', () => {
  // Each way of naming the question the customer asked: by questionId, by sessionId with questionIndex,
  // or both at once; the second answer names it again, in the same way or the other.
  type Asked = Awaited<ReturnType<typeof askedQuestion>>;
  const byId = (q: Asked) => ({ questionId: q.questionId });
  const bySession = (q: Asked) => ({ sessionId: q.sessionId, questionIndex: q.questionIndex });
  const sameQuestion = [
    { way: 'questionId', first: byId, second: byId, named: (q: Asked) => `questionId ${q.questionId}` },
    {
      way: 'sessionId and questionIndex',
      first: bySession,
      second: bySession,
      named: (q: Asked) => `sessionId ${q.sessionId} with questionIndex ${q.questionIndex}`,
    },
    {
      way: 'questionId, then sessionId and questionIndex of the same answer',
      first: (q: Asked) => ({ ...byId(q), ...bySession(q) }),
      second: bySession,
      named: (q: Asked) => `sessionId ${q.sessionId} with questionIndex ${q.questionIndex}`,
    },
  ];

  it.each(sameQuestion)('is rejected with 409 and not delivered in strict mode (same $way)', async ({ first, second, named }) => {
    const sb = await sandbox({ duplicates: 'strict' });
    const asked = await askedQuestion(sb);
    expect((await sendReply(sb, replyBody({ coreClientId: undefined, ...first(asked) }))).status).toBe(200);
    const result = await sendReply(sb, replyBody({ coreClientId: undefined, ...second(asked), text: 'A second answer' }));
    expect(result.status).toBe(409);
    expect(errorMessage(result)).toContain(`the question (${named(asked)}) already has a bot answer`);

    const seen = await messages(sb);
    expect(seen.map((m) => [m.delivered, m.notDelivered, m.questionAlreadyAnswered, m.sessionId])).toEqual([
      [true, null, false, asked.sessionId],
      [false, 'question already answered (strict mode)', true, asked.sessionId],
    ]);
    expect(sb.lastApiLog()).toMatch(/ 409 \S+ rejected \(strict duplicate\), not delivered/);
  });

  it.each(sameQuestion)('is delivered in soft mode, the default (same $way)', async ({ first, second }) => {
    const sb = await sandbox();
    const asked = await askedQuestion(sb);
    expect((await sendReply(sb, replyBody({ coreClientId: undefined, ...first(asked) }))).status).toBe(200);
    expect((await sendReply(sb, replyBody({ coreClientId: undefined, ...second(asked), text: 'A second answer' }))).status).toBe(200);

    const seen = await messages(sb);
    expect(seen.map((m) => [m.delivered, m.questionAlreadyAnswered])).toEqual([
      [true, false],
      [true, true],
    ]);
  });

  it('does not count answers to two questions of a thread as a second answer in strict mode', async () => {
    const sb = await sandbox({ duplicates: 'strict' });
    const first = await askedQuestion(sb);
    const second = await customerSays(sb, first.sessionId, 'And another thing');
    expect(second.questionIndex).toBe(2n);
    expect((await sendReply(sb, replyBody({ questionId: first.questionId }))).status).toBe(200);
    expect((await sendReply(sb, replyBody({ sessionId: first.sessionId, questionIndex: 2n }))).status).toBe(200);
  });

  it('does not count answers addressed only by client as a second answer in strict mode', async () => {
    const sb = await sandbox({ duplicates: 'strict' });
    expect((await sendReply(sb, replyBody({ coreClientId: 8n }))).status).toBe(200);
    expect((await sendReply(sb, replyBody({ coreClientId: 8n }))).status).toBe(200);
  });

  it('answers a retry of a delivered answer with 200, not 409, in strict mode', async () => {
    const sb = await sandbox({ duplicates: 'strict' });
    const asked = await askedQuestion(sb);
    const body = replyBody({ answerId: 'retried', questionId: asked.questionId });
    expect((await sendReply(sb, body)).status).toBe(200);
    expect((await sendReply(sb, body)).status).toBe(200);
    expect((await messages(sb)).map((m) => m.notDelivered)).toEqual([null, 'duplicate answerId']);
  });
});

describe('greeting addressing (greet rules 1–3)', () => {
  it.each([
    { given: 'clientId only', body: { text: 'Hi', clientId: 'ext-1' }, addressedBy: ['clientId'] },
    { given: 'coreClientId only', body: { text: 'Hi', coreClientId: 42n }, addressedBy: ['coreClientId'] },
    { given: 'both', body: { text: 'Hi', clientId: 'ext-1', coreClientId: 42n }, addressedBy: ['clientId'] },
  ])('records a greeting with $given as addressed by $addressedBy', async ({ body, addressedBy }) => {
    const sb = await sandbox();
    expect((await sendGreeting(sb, body)).status).toBe(200);
    const [greeting] = await messages(sb);
    expect(greeting).toMatchObject({ kind: 'greeting', delivered: true, addressedBy, answerId: null });
  });

  it('says in the log that clientId took priority when both were given', async () => {
    const sb = await sandbox();
    await sendGreeting(sb, { text: 'Hi', clientId: 'ext-1', coreClientId: 42n });
    expect(sb.lastApiLog()).toMatch(/greeting delivered addressedBy=clientId \(coreClientId also given; clientId takes priority\)/);
  });
});

describe('identifiers stay exact', () => {
  it('returns 9223372036854775807 digit for digit through /_sandbox/messages', async () => {
    const sb = await sandbox();
    const max = '9223372036854775807';
    const raw = `{"text":"Hi","answerId":"long-ids","coreClientId":${max},"userIds":[${max}],"code":"SWITCH_TO_HUMAN"}`;
    expect((await sendReply(sb, raw)).status).toBe(200);

    const listed = await call(sb, paths.messages, { token: null, tenant: null });
    expect(listed.text).toContain(`"coreClientId": ${max}`);
    const [message] = (parseJson(listed.text) as { messages: { body: Record<string, unknown>; coreClientId: bigint }[] }).messages;
    expect(message?.body.coreClientId).toBe(9223372036854775807n);
    expect(message?.coreClientId).toBe(9223372036854775807n);
    expect(message?.body.userIds).toEqual([9223372036854775807n]);
  });

  it('tells apart clients whose coreClientIds a JavaScript number would merge', async () => {
    const sb = await sandbox();
    // Both round to 9223372036854775808 as a double; as longs they are different clients.
    const a = await startConversation(sb, { coreClientId: 9223372036854775806n });
    const b = await startConversation(sb, { coreClientId: 9223372036854775807n });
    expect((await sendReply(sb, '{"text":"a","coreClientId":9223372036854775806}')).status).toBe(200);
    expect((await sendReply(sb, '{"text":"b","coreClientId":9223372036854775807}')).status).toBe(200);
    expect((await messages(sb)).map((m) => m.sessionId)).toEqual([a.sessionId, b.sessionId]);
  });
});
