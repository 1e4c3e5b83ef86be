import * as z from 'zod/mini';
import { CHANNELS } from './channels.js';
import { report, rule, text } from './checks.js';
import { MAX_CUSTOMER_TEXT } from './customer-text.js';
import { longSchema } from './long.js';
import { quickReplySchema } from './quick-reply.js';

/**
 * The MESSAGE webhook's body: what the platform POSTs to the bot when a customer writes
 * (docs/sandbox.md, "The MESSAGE webhook"). The API shows no webhook payload (docs/api.md, gap 8), so
 * this is the sandbox's own format; it is the contract the sandbox sends with (its delivery writer,
 * src/sandbox/store/delivery.ts, builds every body through `messageDelivery`), that `core schema
 * message` prints and that docs/openapi.json publishes as `webhooks.MESSAGE`.
 *
 * The objects are open: a later version of the platform may add fields, and a bot must ignore the
 * ones it does not know (core check-bot's `unknown-fields` check), so the schema lets them pass.
 */

/** The message types (docs/api.md, "Events": EMAIL is one the webhook carries); EMAIL on an EMAIL thread, TEXT otherwise. */
export const MESSAGE_TYPES = ['TEXT', 'EMAIL'] as const;

/** A UTC time with milliseconds, as `Date.prototype.toISOString` writes it. */
const UTC_TIME = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$';

function utcTime(description: string) {
  return z.string().check(z.regex(new RegExp(UTC_TIME)), z.meta({ description, format: 'date-time' }));
}

/**
 * A field that may be null: both forms described, as every form of every field is
 * (test/schema/json-schema.test.ts), so an editor says what null means.
 */
function nullable<T extends z.core.$ZodType>(schema: T, description: string, nullMeans: string) {
  return z.union([schema, z.null().check(z.describe(nullMeans))]).check(z.describe(description));
}

/** Fields a later version may add are let through, and say so. */
const OPEN = { additionalProperties: true } as const;

function identifier(description: string) {
  return longSchema.check(z.meta({ description }));
}

/** A file the customer sent with the message. */
export const customerAttachmentSchema = z
  .looseObject({
    url: text('Where the file can be fetched.'),
    name: text('The file name, as the customer sent it.'),
    type: z.optional(text('The MIME type of the file, when known.')),
  })
  .check(z.meta({ description: 'A file the customer sent with the message.', ...OPEN }));

/** The list item a customer picked: its identifier and its title, as the bot's messageListPicker held them. */
export const pickedItemSchema = z
  .looseObject({
    identifier: text('The item identifier the bot gave the item (messageListPicker sections[].items[].identifier).'),
    title: text('The item title, which is also the message text.'),
  })
  .check(z.meta({ description: 'The list item the customer picked.', ...OPEN }));

const messageTextDescription =
  `What the customer wrote, up to ${MAX_CUSTOMER_TEXT} characters (UTF-16 code units): any Unicode, emoji, right-to-left ` +
  'text, control characters; a lone surrogate is written as a JSON escape (\\ud800). A pressed button sends its shown_text ' +
  '(else its text), a picked list item its title. Empty only when the message carries attachments.';

/** The customer's message inside the body. */
export const customerMessageSchema = z
  .looseObject({
    questionId: identifier(
      "ID of the client's message (the question): answer it with this questionId. An exact JSON integer up to 2^63 - 1: read it without losing digits.",
    ),
    questionIndex: identifier(
      'Index of the message within the thread, 1, 2, ...: with sessionId, how an EMAIL question is answered (chatbot rule 2).',
    ),
    sessionId: text("ID of the thread (the client's chat)."),
    coreClientId: identifier('Internal ID of the client. An exact JSON integer up to 2^63 - 1: read it without losing digits.'),
    clientId: nullable(
      text('External ID of an authorized client.'),
      'External ID of an authorized client; null for an unauthorized one.',
      'An unauthorized client: no external ID.',
    ),
    type: z
      .enum(MESSAGE_TYPES)
      .check(
        z.describe('EMAIL for a message of an EMAIL thread (answer it by sessionId and questionIndex, chatbot rule 2), TEXT otherwise.'),
      ),
    channel: z.enum(CHANNELS).check(z.describe('The channel of the thread: WEB, IM (instant messenger) or EMAIL.')),
    text: z.string().check(z.maxLength(MAX_CUSTOMER_TEXT), z.meta({ description: messageTextDescription, maxLength: MAX_CUSTOMER_TEXT })),
    receivedAt: utcTime('When the message arrived, UTC, yyyy-MM-ddTHH:mm:ss.SSSZ.'),
    quickReply: nullable(
      quickReplySchema,
      'The quick-reply button the customer pressed, as the bot sent it; null for a typed message or a list pick.',
      'No button was pressed.',
    ),
    listItem: nullable(pickedItemSchema, 'The list item the customer picked; null otherwise.', 'No list item was picked.'),
    attachments: z.optional(
      z.array(customerAttachmentSchema).check(
        z.meta({
          description:
            "Files the customer sent with the message; absent when none. (The sandbox's customers send none; core check-bot --fuzz sends some.)",
          minItems: 1,
        }),
        z.minLength(1),
      ),
    ),
  })
  .check(
    rule((value, ctx) => {
      const message = value as { text?: unknown; attachments?: unknown };
      if (message.text === '' && !(Array.isArray(message.attachments) && message.attachments.length > 0)) {
        report(ctx, ['text'], 'empty, and the message carries no attachments');
      }
    }),
    z.meta({
      description: "The customer's message. Fields not listed here may be added by later versions: ignore them.",
      ...OPEN,
      anyOf: [
        {
          description: 'A message with words.',
          properties: { text: { description: 'Not empty.', minLength: 1 } },
        },
        { description: 'A message with files, and perhaps no words.', required: ['attachments'] },
      ],
    }),
  );

/** The body of a MESSAGE webhook delivery. */
export const messageDeliverySchema = z
  .looseObject({
    type: z
      .literal('MESSAGE')
      .check(z.describe('The kind of webhook: MESSAGE, a customer message for the bot to answer (chatbot rule 1).')),
    tenant: text('The tenant of the thread, as the bot sends it back in X-Tenant-Name.'),
    timestamp: utcTime(
      'When the delivery was made, UTC, yyyy-MM-ddTHH:mm:ss.SSSZ (the webhook-timestamp header says when this attempt was sent).',
    ),
    message: customerMessageSchema,
  })
  .check(
    z.meta({
      description:
        'The body of a MESSAGE webhook: a customer message for the bot to answer through POST /api/v1/chatbot (chatbot rule 1). ' +
        'Fields not listed here may be added by later versions: ignore them.',
      ...OPEN,
    }),
  );

export type MessageDelivery = z.output<typeof messageDeliverySchema>;
export type CustomerMessage = z.output<typeof customerMessageSchema>;

/**
 * The body of a MESSAGE delivery, checked against the contract: the one way the sandbox makes one.
 * A body that breaks it is a defect of the sandbox, never of its user, so it throws a plain Error.
 */
export function messageDelivery(body: unknown): MessageDelivery {
  const checked = checkedMessageDelivery(body);
  if (!checked.ok) throw new Error(`the MESSAGE delivery breaks its contract (core schema message): ${checked.problems.join('; ')}`);
  return checked.body;
}

/**
 * A MESSAGE delivery's body checked against the contract, or what breaks it (`message.text: ...`),
 * for a caller that has a better answer than throwing: a bridge given a platform delivery from which
 * the sandbox's form cannot be made passes the platform's bytes on as they came.
 */
export function checkedMessageDelivery(body: unknown): { ok: true; body: MessageDelivery } | { ok: false; problems: string[] } {
  const result = z.safeParse(messageDeliverySchema, body);
  if (result.success) return { ok: true, body: result.data };
  return { ok: false, problems: result.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`) };
}
