import { CODES, CODES_HANDLED_FIRST } from '../payload/codes.js';
import { attachmentFromUrl, idFromFlag, isRecord } from '../input/fields.js';
import { askField } from './ask.js';
import { compose, type ComposeEnv, type Draft, type Part } from './composer.js';
import type { ComposeGreetingOptions } from './greeting.js';
import { asText, headerFooterPart, listPickerPart, quickRepliesPart, settingsPart, textPart } from './parts.js';
import { attachmentFields, replyFields } from './schemas.js';
import { ADDRESS_FIELDS, REPLY_FIELD_NAMES, ROUTING_FIELDS } from '../payload/reply-fields.js';

/**
 * `core reply -i`: the composer with the bot answer's parts (docs/api.md, "Bot answer"): the text,
 * the addressing, code and agent targets, attachments, and the parts a greeting also has.
 */

/** The bot answer's fields in the order of docs/api.md's table: the reply schema's order, from its model. */
export const REPLY_ORDER = REPLY_FIELD_NAMES;

/** The fields of the four ways of addressing, and the agent targets: from the reply schema's module. */
const TARGETS = ROUTING_FIELDS;

type Way = 'coreClientId' | 'questionId' | 'session' | 'clientId';

/** How the draft is addressed, in words. */
export function replyAddress(draft: Draft): string {
  const parts: string[] = [];
  if (draft.coreClientId !== undefined) parts.push(`coreClientId ${asText(draft.coreClientId) ?? '?'}`);
  if (draft.questionId !== undefined) parts.push(`questionId ${asText(draft.questionId) ?? '?'}`);
  if (draft.sessionId !== undefined || draft.questionIndex !== undefined) {
    parts.push(`sessionId ${asText(draft.sessionId) ?? '?'} #${asText(draft.questionIndex) ?? '?'}`);
  }
  if (draft.clientId !== undefined) parts.push(`clientId ${asText(draft.clientId) ?? '?'}`);
  return parts.length > 0 ? parts.join(', ') : 'no addressee yet';
}

const idList = (text: string): unknown[] =>
  text
    .split(/[\s,]+/)
    .filter(Boolean)
    .map(idFromFlag);
const listText = (value: unknown): string | undefined =>
  Array.isArray(value) ? value.map((v) => asText(v) ?? '').join(', ') : asText(value);

function addressPart(email: boolean): Part {
  return {
    key: 'address',
    name: 'Addressed to',
    summary: (draft) => (ADDRESS_FIELDS.some((f) => draft[f] !== undefined) ? replyAddress(draft) : undefined),
    // docs/api.md, chatbot rule 2: an answer to an email is addressed by sessionId and questionIndex.
    needed: (draft) =>
      email ? draft.sessionId === undefined || draft.questionIndex === undefined : !ADDRESS_FIELDS.some((f) => draft[f] !== undefined),
    async ask(draft, env) {
      const current: Way =
        draft.sessionId !== undefined || draft.questionIndex !== undefined
          ? 'session'
          : draft.questionId !== undefined
            ? 'questionId'
            : draft.clientId !== undefined && draft.coreClientId === undefined
              ? 'clientId'
              : 'coreClientId';
      const way = await env.prompter.select<Way>({
        message: 'Address the reply by',
        choices: [
          { value: 'coreClientId', name: 'coreClientId: the internal client ID (preferred)', short: 'coreClientId' },
          { value: 'questionId', name: "questionId: the ID of the customer's message", short: 'questionId' },
          {
            value: 'session',
            name: `sessionId and questionIndex: the thread and the message's index in it${email ? ' (an email question needs these)' : ''}`,
            short: 'sessionId and questionIndex',
          },
          { value: 'clientId', name: 'clientId: the external client ID (deprecated)', short: 'clientId' },
        ],
        default: email ? 'session' : current,
      });
      const before = { ...draft };
      const id = async (key: 'coreClientId' | 'questionId' | 'questionIndex', label: string) => {
        const text = await askField(env, { label, schema: replyFields[key], parse: idFromFlag, current: asText(before[key]) });
        draft[key] = idFromFlag(text!);
      };
      // One way chosen replaces the others, so the edit menu never leaves a stale address behind.
      for (const field of ADDRESS_FIELDS) delete draft[field];
      if (way === 'coreClientId') await id('coreClientId', 'coreClientId');
      if (way === 'questionId') await id('questionId', 'questionId');
      if (way === 'session') {
        draft.sessionId = await askField(env, { label: 'sessionId', schema: replyFields.sessionId, current: asText(before.sessionId) });
        await id('questionIndex', 'questionIndex');
      }
      if (way === 'clientId')
        draft.clientId = await askField(env, { label: 'clientId', schema: replyFields.clientId, current: asText(before.clientId) });
    },
  };
}

const CODE_NAMES: Record<(typeof CODES)[number], string> = {
  SUCCESS: 'SUCCESS: the bot handled the message',
  UNCLEAR_QUESTION: 'UNCLEAR_QUESTION: the bot did not understand; pass it to an agent',
  SWITCH_TO_HUMAN: 'SWITCH_TO_HUMAN: move the dialog to agents',
};

const TARGET_LABELS: Record<(typeof TARGETS)[number], string> = {
  userIds: 'userIds: agent IDs, separated by commas',
  skillIds: 'skillIds: skills the agents must have, separated by commas',
  unitIds: 'unitIds: departments whose agents receive it, separated by commas',
};

/** code, and with SWITCH_TO_HUMAN the agents, skills and departments that narrow the target. */
const codePart: Part = {
  key: 'code',
  name: 'Code and agents',
  offer: `Code (${CODES_HANDLED_FIRST.join(', ')}) and agents to hand over to`,
  summary(draft) {
    if (draft.code === undefined && !TARGETS.some((t) => draft[t] !== undefined)) return undefined;
    const targets = TARGETS.filter((t) => draft[t] !== undefined).map((t) => `${t} ${listText(draft[t])}`);
    return [asText(draft.code) ?? 'no code', ...targets].join('; ');
  },
  remove(draft) {
    delete draft.code;
    for (const t of TARGETS) delete draft[t];
  },
  async ask(draft, env) {
    const code = await env.prompter.select<string>({
      message: 'Code',
      choices: [...CODES.map((c) => ({ value: c as string, name: CODE_NAMES[c], short: c })), { value: '', name: 'No code' }],
      default: typeof draft.code === 'string' ? draft.code : 'SUCCESS',
    });
    if (code === '') delete draft.code;
    else draft.code = code;
    if (code !== 'SWITCH_TO_HUMAN') {
      // docs/api.md, answer rule 3: userIds, skillIds and unitIds are sent together with SWITCH_TO_HUMAN.
      for (const t of TARGETS) delete draft[t];
      return;
    }
    for (const t of TARGETS) {
      const text = await askField(env, {
        label: TARGET_LABELS[t],
        schema: replyFields[t],
        optional: true,
        parse: idList,
        current: listText(draft[t]),
      });
      if (text === undefined) delete draft[t];
      else draft[t] = idList(text);
    }
  },
};

/** Attachments ("Attachment"): a URL each, with the name and MIME type suggested from it. */
const attachmentsPart: Part = {
  key: 'attachments',
  name: 'Attachments',
  offer: 'Attachments (files by URL)',
  summary(draft) {
    if (draft.attachments === undefined) return undefined;
    const list = Array.isArray(draft.attachments) ? draft.attachments.filter(isRecord) : [];
    return `${list.length} ${list.length === 1 ? 'file' : 'files'}${list.length ? `: ${list.map((a) => asText(a.name) ?? asText(a.url)).join(', ')}` : ''}`;
  },
  remove(draft) {
    delete draft.attachments;
  },
  async ask(draft, env) {
    const previous = Array.isArray(draft.attachments) ? draft.attachments.filter(isRecord) : [];
    const list: Record<string, unknown>[] = [];
    for (let i = 0; ; i++) {
      const before = previous[i] ?? {};
      const n = i + 1;
      const url = (await askField(env, { label: `Attachment ${n} URL`, schema: attachmentFields.url, current: asText(before.url) }))!;
      const guess = await attachmentFromUrl(url);
      const same = before.url === url;
      const name = await askField(env, {
        label: `Attachment ${n} file name (with its extension, so an image displays)`,
        schema: attachmentFields.name,
        optional: true,
        current: same ? asText(before.name) : guess.name,
      });
      const type = await askField(env, {
        label: `Attachment ${n} MIME type`,
        schema: attachmentFields.type,
        optional: true,
        current: same ? asText(before.type) : guess.type,
      });
      const attachment: Record<string, unknown> = { ...(same ? before : {}), url };
      if (name === undefined) delete attachment.name;
      else attachment.name = name;
      if (type === undefined) delete attachment.type;
      else attachment.type = type;
      list.push(attachment);
      if (!(await env.prompter.confirm({ message: 'Add another attachment?', default: n < previous.length }))) break;
    }
    draft.attachments = list;
  },
};

export function replyParts(email: boolean): Part[] {
  return [
    // docs/api.md, chatbot rule 3: text is required unless formattedText is used.
    textPart(replyFields.text, (draft) => draft.text === undefined && draft.formattedText === undefined),
    addressPart(email),
    codePart,
    attachmentsPart,
    quickRepliesPart,
    headerFooterPart,
    listPickerPart,
    settingsPart,
  ];
}

export interface ComposeReplyOptions extends ComposeGreetingOptions {
  /** The question came by email (--email): chatbot rule 2's addressing is asked for. */
  email: boolean;
}

/** Asks for what the bot answer still lacks, previews it, and returns it when the user chooses to send. */
export function composeReply(draft: Draft, env: ComposeEnv, options: ComposeReplyOptions): Promise<Draft> {
  return compose(draft, env, {
    ...options,
    kind: 'reply',
    parts: replyParts(options.email),
    title: (d) => `Reply to ${replyAddress(d)}${typeof d.code === 'string' ? `${env.style.glyphs.separator}${d.code}` : ''}`,
    order: REPLY_ORDER,
  });
}
