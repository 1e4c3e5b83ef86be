import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { greetingSchema, validateGreeting } from '../../src/payload/index.js';
import { problemsOf } from './fixtures.js';

/** The greeting under a profile's limits, and what its JSON Schema says (src/payload/greeting.ts). */

const greeting = {
  text: 'Hi',
  coreClientId: 1n,
  quickReplies: [
    { type: 'TEXT', text: 'ab' },
    { type: 'TEXT', text: 'cd' },
  ],
};
const TOO_MANY = { path: 'quickReplies', message: "2 quick replies, limit 1 (the profile's maxQuickReplies)" };
const tooLong = (index: number) => ({
  path: `quickReplies[${index}].text`,
  message: "2 characters, limit 1 (the profile's maxQuickReplyLength)",
});

describe('one schema per set of limits', () => {
  it.each([
    ['maxQuickReplies', { maxQuickReplies: 1 }, [TOO_MANY], { maxQuickReplies: 2 }],
    ['maxQuickReplyLength', { maxQuickReplyLength: 1 }, [tooLong(0), tooLong(1)], { maxQuickReplyLength: 2 }],
  ])('two profiles with different %s each get their own', (_, tight, problems, loose) => {
    expect(problemsOf(validateGreeting(greeting, { limits: tight }))).toEqual(problems);
    expect(problemsOf(validateGreeting(greeting, { limits: loose }))).toEqual([]);
    expect(problemsOf(validateGreeting(greeting, { limits: tight }))).toEqual(problems);
  });
});

describe('the JSON Schema of the greeting', () => {
  it('states what it is, its rule and its warnings', () => {
    const { description } = z.toJSONSchema(greetingSchema, { unrepresentable: 'any' }) as { description: string };
    expect(description).toContain(
      "Greeting: the request body of POST /api/v1/chatbot/greet, the bot's first proactive message to a client. clientId or coreClientId must be given (greet rule 1). Warnings: clientId is deprecated; when both are given, clientId takes priority (greet rule 3); settings.blockInput works only with quick replies; a header mixing kinds of content. Lengths are counted",
    );
  });
});
