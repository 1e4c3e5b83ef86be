import { UsageError } from '../../errors.js';
import { ROUTING_FIELDS } from '../../payload/reply-fields.js';
import {
  applyQuickReplyFlags,
  applyReceivedAt,
  applySettingsFlags,
  attachmentFromUrl,
  idFromFlag,
  isRecord,
  parseSegment,
  payloadFromFile,
  setField,
  type QuickReplyFlag,
} from '../../input/fields.js';

/** The payload fields `core reply` takes from flags (docs/commands/reply.md); the routing fields' flags are repeatable. */
export interface ReplyFields extends Partial<Record<(typeof ROUTING_FIELDS)[number], string[]>> {
  text?: string;
  markdown?: string;
  coreClientId?: string;
  clientId?: string;
  questionId?: string;
  sessionId?: string;
  questionIndex?: string;
  answerId?: string;
  code?: string;
  attachments?: string[];
  quickReplies?: QuickReplyFlag[];
  blockInput?: boolean;
  masked?: boolean;
  segments?: string[];
  personalManager?: string;
  receivedAt?: string;
  action?: string;
}

export interface BuiltReply {
  payload: Record<string, unknown>;
  /** The payload's answerId, or null when it is not a string (which the schema refuses). */
  answerId: string | null;
  answerIdGenerated: boolean;
  /** How the payload was completed, for --verbose. */
  notes: string[];
}

export interface BuildEnv {
  now: Date;
  newId: () => string;
}

/**
 * Builds the bot answer from the file's fields (if any) with the flags laid over them. A flag
 * replaces the file's field; a repeatable flag replaces the file's whole array; --segment,
 * --personal-manager, --block-input and --masked set keys inside the file's objects.
 */
export async function buildReply(file: unknown, fields: ReplyFields, env: BuildEnv): Promise<BuiltReply> {
  const payload = payloadFromFile(file, 'the bot answer');
  const notes: string[] = [];
  const set = (key: string, value: unknown) => setField(payload, key, value);

  set('text', fields.text);
  set('formattedText', fields.markdown);
  set('answerId', fields.answerId);
  set('clientId', fields.clientId);
  set('coreClientId', fields.coreClientId === undefined ? undefined : idFromFlag(fields.coreClientId));
  set('sessionId', fields.sessionId);
  set('questionId', fields.questionId === undefined ? undefined : idFromFlag(fields.questionId));
  set('questionIndex', fields.questionIndex === undefined ? undefined : idFromFlag(fields.questionIndex));
  set('receivedAt', fields.receivedAt);
  set('action', fields.action);
  set('code', fields.code);
  // --user-id, --skill-id, --unit-id: the agents a SWITCH_TO_HUMAN hands the thread to.
  for (const field of ROUTING_FIELDS) {
    const ids = fields[field];
    if (ids?.length) payload[field] = ids.map(idFromFlag);
  }
  if (fields.attachments?.length) payload.attachments = await Promise.all(fields.attachments.map(attachmentFromUrl));
  applyQuickReplyFlags(payload, fields.quickReplies);
  applySettingsFlags(payload, fields);
  applySegmentFlags(payload, fields);

  applyReceivedAt(payload, env.now, notes);

  // docs/api.md, chatbot rule 3: text is required unless formattedText is used; answer rule 1: the plain-text form
  // "should also be sent in text for display in the user interface".
  if (payload.text === undefined && typeof payload.formattedText === 'string' && payload.formattedText !== '') {
    payload.text = await plainTextOf(payload.formattedText, fields);
    notes.push('text filled with a plain-text rendering of the Markdown in formattedText');
  }

  // docs/api.md, chatbot rule 6: the answerId makes a repeat harmless, so every reply carries one, and the
  // same one on every retry.
  let answerIdGenerated = false;
  if (payload.answerId === undefined) {
    payload.answerId = env.newId();
    answerIdGenerated = true;
    notes.push(`answerId generated: ${String(payload.answerId)}`);
  }
  return { payload, answerId: answerIdOf(payload), answerIdGenerated, notes };
}

/** --segment KEY=VALUE and --personal-manager, set inside the file's segmentationInfo (or a new one). */
function applySegmentFlags(payload: Record<string, unknown>, fields: ReplyFields): void {
  if (!fields.segments?.length && fields.personalManager === undefined) return;
  const info = isRecord(payload.segmentationInfo) ? { ...payload.segmentationInfo } : {};
  for (const segment of fields.segments ?? []) {
    const [key, value] = parseSegment(segment);
    // Defined, not assigned: a key such as __proto__ is a key of the JSON object like any other.
    Object.defineProperty(info, key, { value, enumerable: true, writable: true, configurable: true });
  }
  // docs/api.md, answer rule 5: personal_manager holds an agent login for personal-manager routing.
  if (fields.personalManager !== undefined) info.personal_manager = fields.personalManager;
  payload.segmentationInfo = info;
}

/**
 * The plain-text form of the answer's Markdown. Markdown past the reader's bounds (src/markdown/bounds.ts:
 * too long, too deeply nested, too much emphasis to match in bounded time) is the user's input to change:
 * exit 2, before anything is sent.
 */
async function plainTextOf(markdown: string, fields: ReplyFields): Promise<string> {
  const [{ markdownToPlainText }, { MarkdownLimitError }] = await Promise.all([
    import('../../markdown/plain-text.js'),
    import('../../markdown/bounds.js'),
  ]);
  try {
    return await markdownToPlainText(markdown);
  } catch (error) {
    if (!(error instanceof MarkdownLimitError)) throw error;
    const source = fields.markdown !== undefined ? 'the Markdown (--markdown or --markdown-file)' : "the payload's formattedText";
    throw new UsageError(`cannot write the plain-text form of ${source}: ${error.reason}`, {
      hint: 'give the plain-text form yourself with -t/--text or --text-file (it is then sent as is), or simplify the Markdown',
      cause: error,
    });
  }
}

/**
 * The answerId a result shows (docs/json-output.md: the answerId sent): the payload's when it is a
 * string, else null. A file's `null`, number or object is left to the schema, which refuses it; a
 * string made of it ("null", "5") would show an answerId that was never given.
 */
export function answerIdOf(payload: Record<string, unknown>): string | null {
  return typeof payload.answerId === 'string' ? payload.answerId : null;
}
