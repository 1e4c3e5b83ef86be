import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { replySchema, validateReply } from '../../src/payload/index.js';
import { problemsOf } from './fixtures.js';

/** The bot answer under a profile's limits and the email rule, and what its JSON Schema says (src/payload/reply.ts). */

const replies = (count: number) => Array.from({ length: count }, (_, i) => ({ type: 'TEXT', text: `r${i}` }));

describe('one schema per set of options', () => {
  it('two profiles with different limits each get their own', () => {
    const payload = { text: 'Hi', coreClientId: 1n, quickReplies: replies(2) };
    for (const email of [false, true]) {
      const address = email ? { sessionId: 's', questionIndex: 1n } : {};
      const one = problemsOf(validateReply({ ...payload, ...address }, { email, limits: { maxQuickReplies: 1 } }));
      expect(one).toEqual([{ path: 'quickReplies', message: "2 quick replies, limit 1 (the profile's maxQuickReplies)" }]);
      expect(problemsOf(validateReply({ ...payload, ...address }, { email, limits: { maxQuickReplies: 2 } }))).toEqual([]);
      expect(problemsOf(validateReply({ ...payload, ...address }, { email, limits: { maxQuickReplyLength: 1 } }))).toEqual([
        { path: 'quickReplies[0].text', message: "2 characters, limit 1 (the profile's maxQuickReplyLength)" },
        { path: 'quickReplies[1].text', message: "2 characters, limit 1 (the profile's maxQuickReplyLength)" },
      ]);
    }
  });
});

describe('the JSON Schema of the bot answer', () => {
  const description = () => (z.toJSONSchema(replySchema, { unrepresentable: 'any' }) as { description: string }).description;

  it.each([
    ['what it is', 'Bot answer: the request body of POST /api/v1/chatbot. text is required'],
    [
      'the addressing rule',
      'the reply is addressed by at least one of coreClientId, questionId, sessionId with questionIndex, or clientId, and sessionId and questionIndex go together;',
    ],
    [
      'the email rule, which depends on the question rather than on the body',
      'Not in this schema, since it depends on the question rather than on the body: a question that came by email is answered by sessionId and questionIndex (chatbot rule 2; core reply --email).',
    ],
    [
      'the warnings',
      'Warnings: clientId is deprecated; an action other than INIT_CHAT is not shown by the API; settings.blockInput has an effect only with quick replies (chatbot rule 4); an attachment needs a file extension in its name or a type to display as an image; a header mixing kinds of content. Lengths are counted',
    ],
  ])('states %s', (_, text) => {
    expect(description()).toContain(text);
  });
});
