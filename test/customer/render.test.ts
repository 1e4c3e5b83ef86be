import { describe, expect, it } from 'vitest';
import { describeRefusal, renderExchange } from '../../src/commands/customer/render.js';
import { refusedMessage } from '../../src/commands/customer/outcome.js';
import type { WaitResult } from '../../src/customer/wait.js';
import type { SandboxEvent } from '../../src/sandbox/events.js';
import { anEvent } from '../helpers/events.js';

/** How `core customer` words the bot's refused requests (src/commands/customer/render.ts and run.ts). */

const wrongToken = anEvent('api.request', {
  seq: 12,
  sessionId: null,
  method: 'POST',
  path: '/api/v1/chatbot',
  status: 401,
  error: 'invalid bearer token',
});
const longButton = anEvent('bot.answer', {
  seq: 13,
  sessionId: 's-1',
  status: 400,
  delivered: false,
  notDelivered: null,
  error: 'quickReplies[0].text: 4,001 characters, limit 4,000',
});
const greeting = anEvent('greeting', { seq: 14, sessionId: 's-1', status: 409, error: null, notDelivered: 'thread with agents' });

const result = (end: WaitResult['end'], refused: SandboxEvent[]): WaitResult => ({
  end,
  answers: [],
  handovers: [],
  attempts: [],
  refused,
  delivery: null,
});
const plain = { columns: 80, color: { stdout: false, stderr: false } };

describe('a refused request of the bot, in words', () => {
  it.each<[SandboxEvent, string]>([
    [wrongToken, 'POST /api/v1/chatbot: 401 Unauthorized: invalid bearer token (not tied to a conversation)'],
    [longButton, 'POST /api/v1/chatbot: 400 Bad Request: quickReplies[0].text: 4,001 characters, limit 4,000'],
    [greeting, 'POST /api/v1/chatbot/greet: 409 Conflict: thread with agents'],
    [{ ...wrongToken, error: 'a \u001b[2J b' }, 'POST /api/v1/chatbot: 401 Unauthorized: a \\u001b[2J b (not tied to a conversation)'],
  ])('%o reads %s', (event, words) => {
    expect(describeRefusal(event)).toBe(words);
  });

  it('is the error line when it is the only one, and counted there when there are several', () => {
    expect(refusedMessage([wrongToken])).toBe(`the sandbox refused the bot's ${describeRefusal(wrongToken)}`);
    expect(refusedMessage([wrongToken, longButton])).toBe("the sandbox refused 2 of the bot's requests (listed above)");
  });

  it.each([
    { name: 'one that ended the wait: only the error line', end: 'refused' as const, refused: [wrongToken], lines: [] },
    {
      name: 'several that ended the wait: each listed',
      end: 'refused' as const,
      refused: [wrongToken, longButton],
      lines: [`refused: ${describeRefusal(wrongToken)}`, `refused: ${describeRefusal(longButton)}`],
    },
    {
      name: 'one tied to none that an answer then followed: a note',
      end: 'answered' as const,
      refused: [wrongToken],
      lines: [`note: the sandbox refused ${describeRefusal(wrongToken)}, maybe another conversation's`],
    },
  ])('is printed on stderr for $name', async ({ end, refused, lines }) => {
    const { out, err } = await renderExchange(result(end, refused), plain);
    expect(out).toBe('');
    expect(err.split('\n').filter(Boolean)).toEqual(lines);
  });
});
