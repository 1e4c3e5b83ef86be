import { describe, expect, it } from 'vitest';
import { decideReply, type ReplyRules } from '../../../src/sandbox/rules/reply.js';
import { world } from './world.js';

/**
 * The order of the rules of a bot answer (docs/sandbox.md, "Answers are checked against the state"):
 * each case breaks two rules, and the one checked first decides.
 */

const strict: ReplyRules = { maxEvents: 100, duplicates: 'strict' };
const soft: ReplyRules = { maxEvents: 100, duplicates: 'soft' };

function tenant() {
  const w = world();
  const client = w.client(1001n, 'alice');
  const mail = w.thread(client, { sessionId: 's-mail', channel: 'EMAIL' });
  const mailQuestion = w.ask(mail, { answered: true });
  const agents = w.thread(w.client(1002n), { sessionId: 's-agents', owner: 'agents' });
  const agentsQuestion = w.ask(agents, { answered: true });
  const bot = w.thread(w.client(1003n), { sessionId: 's-bot' });
  const answered = w.ask(bot, { answered: true });
  const passed = w.ask(bot, { withAgents: true, answered: true });
  const open = w.ask(bot);
  w.claim('seen');
  return { w, mail, mailQuestion, agents, agentsQuestion, bot, answered, passed, open };
}

describe('the rules of a bot answer, in order', () => {
  it.each([
    ['an unknown question before a repeated answerId', { questionId: 1n, answerId: 'seen' }, 'refused', 404],
    ['two questions named before chatbot rule 2', { questionId: 5001n, sessionId: 's-bot', questionIndex: 1n }, 'refused', 400],
    ['chatbot rule 2 before a repeated answerId', { questionId: 5001n, answerId: 'seen' }, 'refused', 400],
    ['a repeated answerId before a thread with agents', { questionId: 5002n, answerId: 'seen' }, 'repeat', 200],
    ['a repeated answerId before strict mode', { questionId: 5003n, answerId: 'seen' }, 'repeat', 200],
    ['a thread with agents before strict mode', { questionId: 5002n, answerId: 'new' }, 'refused', 409],
    ['a question with agents before strict mode', { questionId: 5004n }, 'refused', 409],
    ['strict mode refuses a second answer', { questionId: 5003n }, 'refused', 409],
    ['a first answer is delivered', { questionId: 5005n, answerId: 'new' }, 'deliver', 200],
    ['an answer by client is delivered', { coreClientId: 1003n }, 'deliver', 200],
    ['an answer to a client not kept is delivered (the store makes it)', { coreClientId: 9n }, 'deliver', 200],
  ])('%s', (_, address, kind, status) => {
    const decided = decideReply(tenant().w.view, address, strict);
    expect(decided.kind).toBe(kind);
    if (decided.kind === 'refused') expect(decided.refusal.status).toBe(status);
  });

  it('tells the thread-with-agents refusal from the question-with-agents one', () => {
    const { w } = tenant();
    const thread = decideReply(w.view, { questionId: 5002n }, strict);
    const question = decideReply(w.view, { questionId: 5004n }, strict);
    expect(thread.kind === 'refused' && thread.refusal.notDelivered).toBe('thread with agents');
    expect(question.kind === 'refused' && question.refusal.notDelivered).toBe('question with agents');
  });

  it('delivers a second answer in soft mode', () => {
    const { w, answered, bot } = tenant();
    expect(decideReply(w.view, { questionId: answered.questionId }, soft)).toMatchObject({
      kind: 'deliver',
      question: answered,
      thread: bot,
    });
  });

  it("gathers the rules' warnings: a client that is not the question's, then the channel's", () => {
    const { w, open } = tenant();
    const decided = decideReply(w.view, { questionId: open.questionId, coreClientId: 1001n, messageListPicker: {} } as never, strict);
    expect(decided.warnings.map((p) => p.path)).toEqual(['coreClientId', 'messageListPicker']);
  });

  it('warns about the channel of a thread not made yet as WEB', () => {
    const { w } = tenant();
    const decided = decideReply(w.view, { coreClientId: 9n, messageListPicker: {} } as never, strict);
    expect(decided.warnings.map((p) => p.path)).toEqual(['messageListPicker']);
    expect(decided.warnings[0]?.message).toContain('this thread is WEB,');
  });

  it('warns about nothing the channel of an IM thread shows', () => {
    const { w } = tenant();
    const im = w.thread(w.client(1004n), { sessionId: 's-im', channel: 'IM' });
    const question = w.ask(im);
    const decided = decideReply(w.view, { questionId: question.questionId, messageListPicker: {} } as never, strict);
    expect(decided).toMatchObject({ kind: 'deliver', thread: im, warnings: [] });
  });

  it('has no warning when the question named is refused, whatever else the answer names', () => {
    const { w } = tenant();
    const decided = decideReply(w.view, { questionId: 1n, coreClientId: 1003n, messageListPicker: {} } as never, strict);
    expect(decided).toMatchObject({ kind: 'refused', refusal: { status: 404 }, warnings: [] });
  });

  it('keeps the mismatch warning in a chatbot rule 2 refusal', () => {
    const { w } = tenant();
    const decided = decideReply(w.view, { questionId: 5001n, coreClientId: 1003n }, strict);
    expect(decided.kind).toBe('refused');
    expect(decided.warnings.map((p) => p.path)).toEqual(['coreClientId']);
  });

  it('decides without changing the tenant (the store applies the outcome)', () => {
    const { w, open } = tenant();
    decideReply(w.view, { questionId: open.questionId, answerId: 'fresh', code: 'SWITCH_TO_HUMAN' } as never, strict);
    expect(open.answered).toBe(false);
    expect(w.view.answerIds.has('fresh')).toBe(false);
    expect(open.thread.owner).toBe('bot');
  });
});
