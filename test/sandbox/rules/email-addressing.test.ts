import { describe, expect, it } from 'vitest';
import { emailAddressing } from '../../../src/sandbox/rules/email-addressing.js';
import { world } from './world.js';

/** Chatbot rule 2 (docs/api.md): an answer to an EMAIL question is addressed by sessionId and questionIndex. */

function threads() {
  const w = world();
  const client = w.client(1001n, 'mail@example.com');
  const web = w.thread(client, { sessionId: 's-web', channel: 'WEB' });
  const webQuestion = w.ask(web);
  const email = w.thread(client, { sessionId: 's-mail', channel: 'EMAIL' });
  const emailQuestion = w.ask(email);
  return { email, emailQuestion, web, webQuestion };
}

describe('chatbot rule 2: EMAIL answers are addressed by sessionId and questionIndex', () => {
  it.each([
    ['by questionId alone', { questionId: 5002n }, true],
    ['by questionId with sessionId but no questionIndex', { questionId: 5002n, sessionId: 's-mail' }, true],
    ['by questionId with questionIndex but no sessionId', { questionId: 5002n, questionIndex: 1n }, true],
    ['by sessionId and questionIndex', { sessionId: 's-mail', questionIndex: 1n }, false],
    ['by questionId, sessionId and questionIndex', { questionId: 5002n, sessionId: 's-mail', questionIndex: 1n }, false],
  ])('an answer to an EMAIL question %s is refused: %s', (_, address, refused) => {
    const { emailQuestion, email } = threads();
    const refusal = emailAddressing(address, emailQuestion, email);
    if (!refused) expect(refusal).toBeNull();
    else {
      expect(refusal).toEqual({
        status: 400,
        notDelivered: 'EMAIL question not addressed by sessionId and questionIndex',
        error:
          "question 5002 came by EMAIL: address the answer by sessionId 's-mail' and questionIndex 1, not by questionId alone (docs/api.md, chatbot rule 2)",
        sessionId: 's-mail',
        question: emailQuestion,
      });
    }
  });

  it('lets an answer to a TEXT question be addressed by questionId alone', () => {
    const { webQuestion, web } = threads();
    expect(emailAddressing({ questionId: webQuestion.questionId }, webQuestion, web)).toBeNull();
  });

  it('refuses an answer addressed by client whose latest thread is EMAIL, naming the thread', () => {
    const { email } = threads();
    expect(emailAddressing({ coreClientId: 1001n }, undefined, email)).toEqual({
      status: 400,
      notDelivered: 'EMAIL question not addressed by sessionId and questionIndex',
      error:
        "the client's latest thread 's-mail' is EMAIL: address the answer by sessionId and questionIndex (docs/api.md, chatbot rule 2; one email address can have several threads)",
      sessionId: 's-mail',
    });
  });

  it.each([
    ['a WEB latest thread', 'WEB' as const],
    ['an IM latest thread', 'IM' as const],
  ])('lets an answer addressed by client through with %s', (_, channel) => {
    const w = world();
    const thread = w.thread(w.client(1n), { channel });
    expect(emailAddressing({ coreClientId: 1n }, undefined, thread)).toBeNull();
  });

  it('lets an answer addressed by client with no thread yet through (the store makes a WEB thread)', () => {
    expect(emailAddressing({ coreClientId: 1n }, undefined, undefined)).toBeNull();
  });
});
