import { describe, expect, it } from 'vitest';
import { isRepeatedAnswerId } from '../../../src/sandbox/rules/answer-id.js';
import { world } from './world.js';

/** Chatbot rule 6 (docs/api.md): an answerId a delivered answer claimed is not delivered again. */

describe('chatbot rule 6: a repeated answerId', () => {
  it.each([
    ['an answerId a delivered answer claimed', 'a-1', true],
    ['another answerId', 'a-2', false],
    ['the same answerId in another case', 'A-1', false],
    ['no answerId', null, false],
  ])('%s is a repeat: %s', (_, answerId, repeated) => {
    const w = world();
    w.claim('a-1');
    expect(isRepeatedAnswerId(w.view, answerId)).toBe(repeated);
  });

  it('is never a repeat in a tenant that has claimed nothing', () => {
    expect(isRepeatedAnswerId(world().view, 'a-1')).toBe(false);
  });
});
