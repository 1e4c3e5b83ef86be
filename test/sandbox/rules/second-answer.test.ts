import { describe, expect, it } from 'vitest';
import { secondAnswer } from '../../../src/sandbox/rules/second-answer.js';
import { world } from './world.js';

/** Chatbot rule 7 (docs/api.md): a second answer to an answered question, strict or soft. */

describe('chatbot rule 7: a second answer to a question', () => {
  it.each([
    ['strict', true, true],
    ['strict', false, false],
    ['soft', true, false],
    ['soft', false, false],
  ] as const)('in %s mode, to a question answered=%s, is refused: %s', (mode, answered, refused) => {
    const w = world();
    const question = w.ask(w.thread(w.client(1n), { sessionId: 's-1' }), { answered });
    const refusal = secondAnswer({ questionId: question.questionId }, question, mode);
    if (!refused) expect(refusal).toBeNull();
    else {
      expect(refusal).toEqual({
        status: 409,
        notDelivered: 'question already answered (strict mode)',
        error:
          'the question (questionId 5001) already has a bot answer; in strict duplicate mode a second answer is rejected and not delivered',
        sessionId: 's-1',
        question,
      });
    }
  });

  it('names the question as the answer named it, both ways', () => {
    const w = world();
    const question = w.ask(w.thread(w.client(1n), { sessionId: 's-1' }), { answered: true });
    const refusal = secondAnswer({ questionId: 5001n, sessionId: 's-1', questionIndex: 1n }, question, 'strict');
    expect(refusal?.error).toContain('(questionId 5001; sessionId s-1 with questionIndex 1)');
  });

  it('never refuses an answer addressed by client: it names no question', () => {
    expect(secondAnswer({ coreClientId: 1n }, undefined, 'strict')).toBeNull();
  });
});
