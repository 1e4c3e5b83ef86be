import { recordedYaml } from '../record.js';
import { escapeTemplate } from '../substitute.js';
import type { FuzzConversation } from './model.js';
import { actionOn, wordsOf } from './texts.js';

/**
 * A fuzzed conversation as a `core test` file (--fuzz-save DIR): each message a customer step and
 * an answer expected after it. A test file says what the customer wrote, not how the delivery was
 * shaped, so the parts it cannot carry are named in its notes: the --fuzz-replay file beside it plays
 * them.
 */
export async function coreTestOf(conversation: FuzzConversation, rule: string, command: string): Promise<string> {
  const steps: Record<string, unknown>[] = [];
  const notes: string[] = [];
  conversation.messages.forEach((message, index) => {
    const words = wordsOf(message, conversation.channel, index);
    // A pressed button or a picked item the bot never offered cannot be pressed in a test: its text is typed instead.
    if (actionOn(message.action, conversation.channel) !== 'text')
      notes.push(`message ${index + 1} was a ${actionOn(message.action, conversation.channel)}; here it is typed`);
    if (words.text === '') notes.push(`message ${index + 1} had files and no text; here it is "(a file)"`);
    steps.push({ customer: words.text === '' ? '(a file)' : escapeTemplate(words.text) }, { bot: {} });
    if (message.attachments.length > 0 || message.unknownFields || message.largeIds || message.redeliver || message.burst) {
      notes.push(
        `message ${index + 1}'s delivery had files, unknown fields, a large id, a redelivery or no wait before it, which a test file does not carry`,
      );
    }
  });
  if (conversation.coreClientId !== null) notes.push(`the client was ${conversation.coreClientId}, above 2^53`);
  const value = { name: `core check-bot ${rule}`, channel: conversation.channel, steps };
  return recordedYaml(
    { filename: '', value, notes: [...new Set(notes)] },
    `${rule}, found by core check-bot --fuzz; replay it exactly with: ${command}`,
  );
}
