import * as z from 'zod/mini';
import { attachmentSchema, attachmentWarnings } from './attachment.js';
import { has, isRecord, report, rule, text } from './checks.js';
import {
  LENGTH_NOTE,
  actionSchema,
  actionWarnings,
  blockInputWarnings,
  clientIdSchema,
  clientIdWarnings,
  codeSchema,
  coreClientIdSchema,
  receivedAtSchema,
  replySettingsSchema,
  segmentationInfoSchema,
  usableLimits,
  type Limits,
} from './common.js';
import { messageListPickerSchema } from './list-picker.js';
import { longSchema, longSetSchema } from './long.js';
import { describeValue, type RawProblem } from './messages.js';
import { headerFooterWarnings, quickRepliesHeaderFooterSchema, quickRepliesSchemaFor } from './quick-reply.js';
import { ADDRESS_FIELDS, ROUTING_FIELDS, type ReplyField } from './reply-fields.js';
import { validateWith, type Validation } from './validate.js';

export { ADDRESS_FIELDS, ROUTING_FIELDS } from './reply-fields.js';

export interface ReplyOptions {
  /** The profile's limits on quick replies (docs/api.md, quick-reply rule 4). */
  limits?: Limits;
  /** The question came by email: the answer must be addressed by sessionId and questionIndex (docs/api.md, chatbot rule 2). */
  email?: boolean;
}

const EMAIL_RULE = "the question came by email, so the answer is addressed by sessionId and questionIndex (the API's chatbot rule 2)";
const PAIR_RULE = 'a reply by thread gives both sessionId and questionIndex';

/**
 * The rules of POST /api/v1/chatbot (docs/api.md) that tie fields together. They run on the whole object even
 * when some field is invalid, and test whether a field is present, not whether it is valid, so a
 * payload with a bad coreClientId reports that, not also "no addressee".
 */
function replyRules(email: boolean) {
  return rule((value, ctx) => {
    const reply = value as Record<string, unknown>;

    // Chatbot rule 3: text is required unless formattedText is used.
    if (!has(reply, 'text') && !has(reply, 'formattedText')) {
      report(ctx, ['text'], "required unless formattedText is given (the API's chatbot rule 3)");
    }

    // Addressing rules 1 and 2, four ways: coreClientId; questionId; sessionId and questionIndex; clientId.
    const session = has(reply, 'sessionId');
    const index = has(reply, 'questionIndex');
    if (email) {
      if (!session) report(ctx, ['sessionId'], `required: ${EMAIL_RULE}`);
      if (!index) report(ctx, ['questionIndex'], `required: ${EMAIL_RULE}`);
    } else {
      if (session && !index) report(ctx, ['questionIndex'], `required with sessionId: ${PAIR_RULE}`);
      if (index && !session) report(ctx, ['sessionId'], `required with questionIndex: ${PAIR_RULE}`);
      if (!ADDRESS_FIELDS.some((field) => has(reply, field))) {
        report(ctx, [], 'no addressee: give coreClientId, questionId, sessionId with questionIndex, or clientId');
      }
    }

    // userIds, skillIds and unitIds are "sent together with code SWITCH_TO_HUMAN" (answer rule 3).
    if (reply.code !== 'SWITCH_TO_HUMAN') {
      const code = has(reply, 'code') ? `code is ${describeValue(reply.code)}` : 'code is absent';
      for (const field of ROUTING_FIELDS) {
        if (has(reply, field)) report(ctx, [field], `only allowed with code SWITCH_TO_HUMAN, and ${code}`);
      }
    }
  });
}

/**
 * replyRules as JSON Schema, rule for rule, for `core schema reply` and the OpenAPI document. A field
 * counts as given when its key is there (`required`), as in `has`; whether its value is valid is the
 * field's own schema's business, as it is replyRules'.
 */
function replyRulesJsonSchema() {
  const onlyWithSwitchToHuman = {
    description: 'Only with code SWITCH_TO_HUMAN (answer rule 3).',
    required: ['code'],
    properties: { code: { const: 'SWITCH_TO_HUMAN' } },
  };
  return {
    allOf: [
      { description: 'text, or formattedText (chatbot rule 3).', anyOf: [{ required: ['text'] }, { required: ['formattedText'] }] },
      // The email rule (chatbot rule 2) depends on the question, not on the body: it stays in words.
      {
        description: 'Addressed by coreClientId, questionId, sessionId with questionIndex, or clientId (addressing rule 1).',
        anyOf: [
          { required: ['coreClientId'] },
          { required: ['questionId'] },
          { required: ['sessionId', 'questionIndex'] },
          { required: ['clientId'] },
        ],
      },
    ],
    // Addressing rule 2 (PAIR_RULE).
    dependentRequired: { sessionId: ['questionIndex'], questionIndex: ['sessionId'] },
    dependentSchemas: Object.fromEntries(ROUTING_FIELDS.map((field) => [field, onlyWithSwitchToHuman])),
  };
}

const DESCRIPTION = [
  'Bot answer: the request body of POST /api/v1/chatbot.',
  'text is required unless formattedText is given (chatbot rule 3);',
  'the reply is addressed by at least one of coreClientId, questionId, sessionId with questionIndex, or clientId,',
  'and sessionId and questionIndex go together;',
  'userIds, skillIds and unitIds are allowed only with code SWITCH_TO_HUMAN.',
  'Not in this schema, since it depends on the question rather than on the body: a question that came by email is answered by sessionId and questionIndex (chatbot rule 2; core reply --email).',
  'Warnings: clientId is deprecated; an action other than INIT_CHAT is not shown by the API;',
  'settings.blockInput has an effect only with quick replies (chatbot rule 4); an attachment needs a file extension in its name or a type to display as an image;',
  'a header mixing kinds of content.',
  LENGTH_NOTE,
].join(' ');

/**
 * The schema of each field. Its keys are the fields of the model (src/payload/reply-fields.ts), no more
 * and no fewer (`satisfies`), in the model's order (test/payload/reply-fields.test.ts).
 */
function replyShape(limits: Limits) {
  return {
    text: z.optional(text("Bot's reply text. Required when formattedText is absent (chatbot rule 3).")),
    formattedText: z.optional(
      text('Reply text that may contain Markdown. The plain-text form should also be sent in text for display in the user interface.'),
    ),
    // answerId is "unmarked" (docs/api.md, gap 2); the CLI always fills one (a new UUID) so that a retry cannot deliver twice.
    answerId: z.optional(
      text('Unique ID of the bot answer. When an answerId is received again, the message is not delivered (chatbot rule 6).'),
    ),
    clientId: z.optional(clientIdSchema),
    coreClientId: z.optional(coreClientIdSchema),
    sessionId: z.optional(text('Thread ID. Sent together with questionIndex.')),
    questionId: z.optional(longSchema.check(z.describe("ID of the client's message."))),
    questionIndex: z.optional(longSchema.check(z.describe("Index of the client's message in the thread. Sent together with sessionId."))),
    receivedAt: z.optional(receivedAtSchema),
    action: z.optional(actionSchema),
    // segmentationInfo is "unmarked"; it is optional here, since most answers have nothing to route by.
    segmentationInfo: z.optional(segmentationInfoSchema),
    attachments: z.optional(z.array(attachmentSchema).check(z.describe('Attachments of the answer.'))),
    // code is "unmarked"; it is optional here, as a plain answer needs none.
    code: z.optional(codeSchema),
    userIds: z.optional(
      longSetSchema('Agent IDs to which the thread is moved after it is taken from the current bot. Only with code SWITCH_TO_HUMAN.'),
    ),
    skillIds: z.optional(longSetSchema('IDs of skills that the target agents must have. Only with code SWITCH_TO_HUMAN.')),
    unitIds: z.optional(longSetSchema('IDs of departments whose agents receive the thread. Only with code SWITCH_TO_HUMAN.')),
    settings: z.optional(replySettingsSchema),
    quickReplies: z.optional(quickRepliesSchemaFor(limits)),
    quickRepliesHeaderFooter: z.optional(quickRepliesHeaderFooterSchema),
    messageListPicker: z.optional(messageListPickerSchema),
  } satisfies Record<ReplyField, z.core.$ZodType>;
}

function buildReplySchema(limits: Limits, email: boolean) {
  return z.strictObject(replyShape(limits)).check(replyRules(email), z.meta({ description: DESCRIPTION, ...replyRulesJsonSchema() }));
}

/** The bot answer with no profile limits and no email rule: what any reply must satisfy. */
export const replySchema = buildReplySchema({}, false);
export type Reply = z.output<typeof replySchema>;

const cache = new Map<string, typeof replySchema>();

/** The bot answer under the given options; one schema per distinct set of options. */
export function replySchemaFor(opts: ReplyOptions = {}): typeof replySchema {
  const limits = usableLimits(opts.limits);
  const email = opts.email === true;
  if (!email && limits.maxQuickReplies === undefined && limits.maxQuickReplyLength === undefined) return replySchema;
  const key = `${email}/${limits.maxQuickReplies ?? ''}/${limits.maxQuickReplyLength ?? ''}`;
  let schema = cache.get(key);
  if (!schema) {
    schema = buildReplySchema(limits, email);
    cache.set(key, schema);
  }
  return schema;
}

/** The advice the API gives without making it a rule; see each function for its source. */
export function replyWarnings(input: unknown): RawProblem[] {
  const out = [...clientIdWarnings(input), ...actionWarnings(input), ...blockInputWarnings(input), ...headerFooterWarnings(input)];
  if (isRecord(input) && Array.isArray(input.attachments)) {
    input.attachments.forEach((attachment: unknown, index) => {
      out.push(...attachmentWarnings(attachment, ['attachments', index]));
    });
  }
  return out;
}

/**
 * Validates a bot answer (POST /api/v1/chatbot). `limits` are the profile's quick-reply limits;
 * `email` says the question came by email, so the answer must carry sessionId and questionIndex.
 */
export function validateReply(input: unknown, opts: { limits?: Limits; email?: boolean } = {}): Validation<Reply> {
  return validateWith(replySchemaFor(opts), input, replyWarnings);
}
