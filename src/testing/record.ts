import { cjs } from '../interop.js';
import { isRecord } from '../payload/json.js';
import type { SandboxEvent } from '../sandbox/events.js';
import { exactPattern, literal } from './pattern.js';
import { PersonalDataMask } from './personal-data.js';
import { escapeTemplate } from './substitute.js';
import { CHECKED_FIELDS, type TestChannel } from './schema.js';
import { trimEndOf, trimOf } from '../text/trim.js';

/**
 * "Save as test" (docs/testing-bots.md, "Save a conversation as a test"): a sandbox conversation as
 * a `core test` file that passes again against the same bot. The customer's messages, presses and
 * picks become steps; each answer delivered to the customer a `bot:` step with the fields it was
 * answered with; a customer message that got no answer a `bot: none`; an agent's message an `agent:`
 * step, and a thread given back to the bot `release: true`. The answerId, the addressing
 * fields and the other values that differ from run to run are left out, and a text that would read
 * as a /pattern/ is written as a pattern that matches exactly it, and `${` as `$${` (not a captured value).
 */

export interface RecordedConversation {
  sessionId: string;
  channel: TestChannel;
  clientId: string | null;
}

export interface RecordedTest {
  /** The file's name: the test's name made safe for a file name, or the sessionId. */
  filename: string;
  /** The test file, as core test reads it. */
  value: Record<string, unknown>;
  /** What the conversation had that a test cannot replay (a greeting). */
  notes: string[];
}

const NAME_LENGTH = 60;

/** How a conversation is saved: `loose` writes the numbers of the bot's texts as any number; `maskPersonalData` replaces personal data. */
export interface RecordOptions {
  loose?: boolean;
  maskPersonalData?: boolean;
}

export function recordConversation(
  conversation: RecordedConversation,
  events: Iterable<SandboxEvent>,
  options: RecordOptions = {},
): RecordedTest {
  const steps: Record<string, unknown>[] = [];
  const notes: string[] = [];
  const mask = options.maskPersonalData === true ? new PersonalDataMask() : undefined;
  const words = (text: string) => (mask === undefined ? text : mask.mask(text));
  let firstText: string | undefined;
  // Whether the latest customer message has had an answer; undefined before the first one.
  let answered: boolean | undefined;
  const closeSilence = () => {
    if (answered === false) steps.push({ bot: 'none' });
  };
  for (const event of events) {
    if (event.type === 'customer.message') {
      closeSilence();
      if (event.quickReply !== null && typeof event.quickReply.text === 'string')
        steps.push({ press: escapeTemplate(event.quickReply.text) });
      else if (event.listItem !== null) steps.push({ press: escapeTemplate(event.listItem.identifier) });
      else {
        steps.push({ customer: escapeTemplate(words(event.text)) });
        firstText ??= words(event.text);
      }
      answered = false;
    } else if (event.type === 'bot.answer') {
      // Answers before the first customer message have nothing to follow; refused ones never reached the customer.
      if (answered === undefined || !event.delivered) continue;
      steps.push({ bot: answerFields(event.body, { loose: options.loose === true, words }) });
      answered = true;
    } else if (event.type === 'greeting') {
      notes.push(`a greeting at ${event.time} is not replayed: core test plays the customer's side`);
    } else if (event.type === 'agent.message' || event.type === 'released') {
      // Replayed as it happened: the agent's message by whichever agent holds the thread on the replay.
      if (answered === undefined) continue;
      closeSilence();
      answered = true;
      steps.push(event.type === 'agent.message' ? { agent: escapeTemplate(words(event.text)) } : { release: true });
    }
  }
  closeSilence();
  notes.push(...maskedNotes(mask));
  if (steps.length === 0 || !('customer' in steps[0]!)) {
    // A conversation the customer has not written in yet, or one whose first step is a press
    // (recorded only in part): the file says so rather than failing to load.
    notes.push('the conversation has no customer message to start from: write the first step, customer: TEXT');
  }

  const name =
    firstText === undefined ? `conversation ${conversation.sessionId}` : escapeTemplate(cut(firstText.replace(/\s+/g, ' ').trim()));
  const value: Record<string, unknown> = { name, channel: conversation.channel };
  if (conversation.clientId !== null) value.client = { clientId: conversation.clientId };
  value.steps = steps;
  return { filename: `${slug(name) || conversation.sessionId}.yaml`, value, notes };
}

/** The note of the personal data a mask replaced, if any. */
function maskedNotes(mask: PersonalDataMask | undefined): string[] {
  if (mask === undefined) return [];
  const { email, card, phone } = mask.replaced;
  if (email + card + phone === 0) return [];
  return [`personal data replaced with placeholders: ${email} e-mail address(es), ${card} card number(s), ${phone} phone number(s)`];
}

/** The test file as YAML, with a comment naming its schema and where it came from. */
export async function recordedYaml(recorded: RecordedTest, origin: string): Promise<string> {
  const { stringify } = cjs(await import('yaml'), 'stringify');
  const header = [
    '# yaml-language-server: $schema=https://unpkg.com/core-cli/docs/schemas/test.schema.json',
    `# ${origin}`,
    '# Run it with: core test FILE --bot-url URL (docs/testing-bots.md)',
    ...recorded.notes.map((note) => `# Note: ${note}`),
  ];
  return `${header.join('\n')}\n${stringify(recorded.value, { lineWidth: 0 })}`;
}

/** The fields of an answer a test checks, each string written so that it matches itself. */
interface Writing {
  loose: boolean;
  words: (text: string) => string;
}

function answerFields(body: unknown, writing: Writing): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isRecord(body)) return out;
  for (const field of CHECKED_FIELDS) if (body[field] !== undefined) out[field] = exact(body[field], writing);
  return out;
}

function exact(value: unknown, writing: Writing): unknown {
  if (typeof value === 'string') {
    const text = writing.words(value);
    // --loose: a text with numbers (an order, a time, a count) matches the same text with any numbers.
    if (writing.loose && /\d/.test(text)) return loosePattern(text);
    // A text holding `${` is written `$${`, so it is not read as a captured value.
    return literal(text) === text ? escapeTemplate(text) : literal(text);
  }
  if (Array.isArray(value)) return value.map((item) => exact(item, writing));
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, exact(item, writing)]));
  return value;
}

/** A pattern matching `text` with each run of digits any run of digits. */
export function loosePattern(text: string): string {
  return exactPattern(text).replace(/\d+/g, '\\d+');
}

function cut(text: string): string {
  const chars = [...text];
  return chars.length <= NAME_LENGTH ? text : `${chars.slice(0, NAME_LENGTH - 1).join('')}…`;
}

/** A name as a file name: lower-case ASCII letters, digits and dashes. */
function slug(name: string): string {
  const dashed = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-');
  return trimEndOf(trimOf(dashed, '-').slice(0, NAME_LENGTH), '-');
}
