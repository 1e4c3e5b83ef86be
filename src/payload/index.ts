/**
 * The payload schemas: every rule of the API's three request bodies (docs/api.md), in one place.
 * Pure modules (no I/O) shared by the CLI, the sandbox, the interactive composer and the JSON Schema
 * output. Schemas carry no transforms, so `z.toJSONSchema` can render each of them.
 */
export { MAX_LONG, longSchema, longSetSchema, longJsonSchemaOverride, type Long } from './long.js';
export { attachmentSchema, type Attachment } from './attachment.js';
export {
  CODES,
  KNOWN_ACTIONS,
  actionSchema,
  clientIdSchema,
  codeSchema,
  coreClientIdSchema,
  greetingSettingsSchema,
  receivedAtSchema,
  replySettingsSchema,
  segmentationInfoSchema,
  type Code,
  type GreetingSettings,
  type Limits,
  type ReplySettings,
} from './common.js';
export {
  QUICK_REPLY_TYPES,
  quickRepliesHeaderFooterSchema,
  quickRepliesSchemaFor,
  quickReplySchema,
  quickReplySchemaFor,
  type QuickRepliesHeaderFooter,
  type QuickReply,
} from './quick-reply.js';
export { MAX_LIST_ITEMS, messageListPickerSchema, type MessageListPicker } from './list-picker.js';
export { replySchema, replySchemaFor, validateReply, type Reply, type ReplyOptions } from './reply.js';
export { greetingSchema, greetingSchemaFor, validateGreeting, type Greeting, type GreetingOptions } from './greeting.js';
export {
  colorSchema,
  localeSchema,
  reasonSchema,
  reasonTranslationSchema,
  validateReason,
  type Reason,
  type ReasonTranslation,
} from './reason.js';
export { maxLengthOf, validateField, type Validation } from './validate.js';
export { parseJson, stringifyJson } from './json.js';
