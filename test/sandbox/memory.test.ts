import { describe, expect, it } from 'vitest';
import { askedQuestion, call, customerSays, errorMessage, replyBody, sandbox, sendReply, startConversation } from './helpers.js';

/**
 * Memory is bounded (docs/sandbox.md, "Memory"): at most maxEvents events per tenant, and with them go
 * the questions, threads, clients, answerIds and deliveries no kept event mentions any more.
 */

describe('the bounds of what the sandbox keeps', () => {
  it('keeps the last maxEvents events of a tenant, dropping the oldest first', async () => {
    const sb = await sandbox({ maxEvents: 10 });
    const { sessionId } = await startConversation(sb);
    for (let i = 0; i < 25; i += 1) await customerSays(sb, sessionId, `message ${i}`);
    const kept = sb.events({ tenant: 'sandbox' });
    expect(kept).toHaveLength(10);
    expect(kept.map((e) => (e as { text?: string }).text)).toEqual(Array.from({ length: 10 }, (_, i) => `message ${15 + i}`));
    expect(sb.sizes('sandbox')).toMatchObject({ events: 10, threads: 1, clients: 1, questions: 10 });
  });

  it('keeps exactly maxEvents, not one more: at the bound and one past it', async () => {
    const sb = await sandbox({ maxEvents: 3 });
    const { sessionId } = await startConversation(sb);
    await customerSays(sb, sessionId, 'one');
    await customerSays(sb, sessionId, 'two');
    expect(sb.events().map((e) => e.type)).toEqual(['conversation.started', 'customer.message', 'customer.message']);
    await customerSays(sb, sessionId, 'three');
    expect(sb.events().map((e) => e.type)).toEqual(['customer.message', 'customer.message', 'customer.message']);
  });

  it('forgets threads, clients, questions, answerIds and deliveries with the last event that mentions them', async () => {
    const sb = await sandbox({ maxEvents: 20, botUrl: 'http://127.0.0.1:9/unused', webhookRetries: 0 });
    for (let i = 0; i < 300; i += 1) {
      const asked = await askedQuestion(sb, {}, `question ${i}`);
      await sendReply(sb, replyBody({ coreClientId: undefined, questionId: asked.questionId, answerId: `answer-${i}` }));
    }
    const sizes = sb.sizes('sandbox');
    expect(sizes.events).toBe(20);
    for (const key of ['threads', 'clients', 'questions', 'answerIds', 'deliveries'] as const) expect(sizes[key]).toBeLessThanOrEqual(20);
  });

  it('answers 404 to an answer to a question older than the kept events, and says why', async () => {
    const sb = await sandbox({ maxEvents: 5 });
    const old = await askedQuestion(sb);
    for (let i = 0; i < 5; i += 1) await customerSays(sb, old.sessionId, `newer ${i}`);
    const result = await sendReply(sb, replyBody({ coreClientId: undefined, questionId: old.questionId }));
    expect(result.status).toBe(404);
    expect(errorMessage(result)).toContain('the sandbox keeps the last 5 events of a tenant');
    // The thread lives on with its newer questions.
    expect((await sendReply(sb, replyBody({ coreClientId: undefined, sessionId: old.sessionId, questionIndex: 6n }))).status).toBe(200);
  });

  it('answers 404 to a conversation none of whose events is kept', async () => {
    const sb = await sandbox({ maxEvents: 4 });
    const old = await startConversation(sb);
    for (let i = 0; i < 2; i += 1) await askedQuestion(sb);
    expect((await call(sb, `/_sandbox/conversations/${old.sessionId}`, { token: null, tenant: null })).status).toBe(404);
    // Its client is forgotten too: an answer to it by coreClientId makes it anew, in a new thread.
    expect((await sendReply(sb, replyBody({ coreClientId: old.coreClientId }))).status).toBe(200);
    expect(sb.conversation(old.sessionId)).toBeUndefined();
  });

  it('forgets an answerId with the answer that claimed it, so a very late repeat is delivered', async () => {
    const sb = await sandbox({ maxEvents: 4 });
    await sendReply(sb, replyBody({ coreClientId: 1n, answerId: 'early' }));
    for (let i = 0; i < 4; i += 1) await sendReply(sb, replyBody({ coreClientId: 1n }));
    await sendReply(sb, replyBody({ coreClientId: 1n, answerId: 'early' }));
    expect(sb.messages().at(-1)).toMatchObject({ answerId: 'early', delivered: true });
  });

  it('drops the oldest events of a tenant past maxEventBytes of bodies, whatever their count', async () => {
    const sb = await sandbox({ maxEventBytes: 64 * 1024 });
    const text = 'x'.repeat(20 * 1024);
    for (let i = 0; i < 10; i += 1) await sendReply(sb, replyBody({ coreClientId: 1n, text }));
    const sizes = sb.sizes('sandbox');
    expect(sizes.bytes).toBeLessThanOrEqual(64 * 1024);
    expect(sizes.events).toBeLessThan(10);
  });

  it.each([
    ['Latin-1', 'é', 1],
    ['two-byte', '€', 2],
  ])('counts a %s customer message of 4,000 characters at its real size, %i bytes a character', async (_, char, perChar) => {
    const sb = await sandbox();
    const { sessionId } = await startConversation(sb);
    const before = sb.sizes('sandbox').bytes;
    await customerSays(sb, sessionId, char.repeat(4000));
    const counted = sb.sizes('sandbox').bytes - before;
    expect(counted).toBeGreaterThanOrEqual(4000 * perChar);
    expect(counted).toBeLessThan(4000 * perChar + 2000);
  });

  it('counts the exact bytes of a MESSAGE delivery besides its event', async () => {
    const sb = await sandbox({ botUrl: 'http://127.0.0.1:9/unused', webhookRetries: 0 });
    const { sessionId } = await startConversation(sb);
    const before = sb.sizes('sandbox').bytes;
    await customerSays(sb, sessionId, 'x'.repeat(4000));
    const counted = sb.sizes('sandbox').bytes - before;
    // The text once in the event and once in the delivery's bytes.
    expect(counted).toBeGreaterThanOrEqual(8000);
  });

  it("bounds each tenant on its own: a busy tenant does not push out another's events", async () => {
    const sb = await sandbox({ tenants: ['busy', 'quiet'], maxEvents: 5 });
    const quiet = await askedQuestion(sb, { tenant: 'quiet' });
    for (let i = 0; i < 20; i += 1) await askedQuestion(sb, { tenant: 'busy' });
    expect(sb.events({ tenant: 'quiet' }).map((e) => e.type)).toEqual(['conversation.started', 'customer.message']);
    expect(sb.conversation(quiet.sessionId)).toBeDefined();
  });
});
