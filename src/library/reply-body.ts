import type { Reply } from '../payload/reply.js';
import type { ReplyAddressing } from '../sandbox/rules/addressing.js';

/**
 * The body of a bot answer (POST /api/v1/chatbot) as the sandbox took it: every field the API's
 * bot answer has (docs/payloads.md), identifiers as `bigint`. Written out here rather than taken
 * from the zod schema that checks it, so the declarations of `core-cli/sandbox` need no zod; the
 * check below fails to compile when the two differ. Only answers the schema accepts become bot
 * answers, so a `bot.answer`'s body always has this shape.
 */
export interface ReplyBody {
  text?: string | undefined;
  formattedText?: string | undefined;
  answerId?: string | undefined;
  /** Deprecated by the API: use coreClientId. */
  clientId?: string | undefined;
  coreClientId?: bigint | undefined;
  sessionId?: string | undefined;
  questionId?: bigint | undefined;
  questionIndex?: bigint | undefined;
  receivedAt?: string | undefined;
  action?: string | undefined;
  segmentationInfo?: { [key: string]: string } | undefined;
  attachments?: ReplyAttachment[] | undefined;
  code?: 'UNCLEAR_QUESTION' | 'SWITCH_TO_HUMAN' | 'SUCCESS' | undefined;
  userIds?: bigint[] | undefined;
  skillIds?: bigint[] | undefined;
  unitIds?: bigint[] | undefined;
  settings?: { blockInput?: boolean | undefined; masked?: boolean | undefined } | undefined;
  quickReplies?: ReplyQuickReply[] | undefined;
  quickRepliesHeaderFooter?:
    | {
        header?:
          | {
              text?: string | undefined;
              imageUrl?: string | undefined;
              documentUrl?: string | undefined;
              documentName?: string | undefined;
              videoUrl?: string | undefined;
            }[]
          | undefined;
        footer?: { text: string }[] | undefined;
      }
    | undefined;
  messageListPicker?:
    | {
        title: string;
        sections: { items: { title: string; identifier: string; subTitle?: string | undefined }[]; title?: string | undefined }[];
        header?: { text: string } | undefined;
        footer?: { text: string } | undefined;
      }
    | undefined;
}

/** An attachment of a bot answer; the extra fields the API's examples carry are of no type it shows. */
export interface ReplyAttachment {
  url: string;
  name?: string | undefined;
  type?: string | undefined;
  size?: unknown;
  contentType?: unknown;
  fileId?: unknown;
  state?: unknown;
  errorCode?: unknown;
  errorMessage?: unknown;
}

/** A quick-reply button of a bot answer. */
export interface ReplyQuickReply {
  type: 'TEXT' | 'CONTACT';
  text: string;
  shown_text?: string | undefined;
  callback_data?: string | undefined;
  imageUrl?: string | undefined;
  url?: string | undefined;
  payload?: unknown;
}

/** How an answer was addressed: each way its body carries (docs/api.md, addressing rule 1). */
export type AddressedBy = ReplyAddressing;

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const replyTypesAgree: Same<ReplyBody, Reply> = true;
void replyTypesAgree;
