import { describe, expect, it } from 'vitest';
import { validateReply } from '../../src/payload/index.js';
import { problemsOf } from './fixtures.js';

/** The rules of the interactive list that span its sections (src/payload/list-picker.ts), on values that break other rules too. */

const withItems = (...items: unknown[]) => ({
  text: 'Hi',
  coreClientId: 1n,
  messageListPicker: { title: 'Open', sections: [{ items }] },
});

describe('identifiers unique across the message', () => {
  it.each([
    ['empty', '', 'must not be empty'],
    ['not a string', 5n, 'expected a string, got 5'],
  ])('two %s identifiers are each a problem, and not a repeat', (_, identifier, message) => {
    expect(problemsOf(validateReply(withItems({ title: 'a', identifier }, { title: 'b', identifier })))).toEqual([
      { path: 'messageListPicker.sections[0].items[0].identifier', message },
      { path: 'messageListPicker.sections[0].items[1].identifier', message },
    ]);
  });

  it('an item that is not an object is a problem, and the others are still compared', () => {
    expect(problemsOf(validateReply(withItems(null, { title: 'a', identifier: 'x' }, { title: 'b', identifier: 'x' })))).toEqual([
      { path: 'messageListPicker.sections[0].items[0]', message: 'expected an object, got null' },
      {
        path: 'messageListPicker.sections[0].items[2].identifier',
        message:
          'identifier "x" is already used at messageListPicker.sections[0].items[1].identifier; identifiers must be unique across the message',
      },
    ]);
  });
});
