import {
  attachmentSchema,
  greetingSchema,
  messageListPickerSchema,
  quickRepliesHeaderFooterSchema,
  quickReplySchemaFor,
  reasonSchema,
  reasonTranslationSchema,
  replySchema,
  type Limits,
} from '../payload/index.js';

/**
 * The field schemas the composer validates its answers with, taken out of the payload schemas
 * (never written again here): a prompt's limit is exactly the payload's limit.
 */

const picker = messageListPickerSchema.shape;
const section = picker.sections.def.element.shape;
const item = section.items.def.element.shape;

/** messageListPicker (docs/api.md, "messageListPicker"). */
export const listFields = {
  title: picker.title,
  headerText: picker.header.def.innerType.shape.text,
  footerText: picker.footer.def.innerType.shape.text,
  sectionTitle: section.title,
  itemTitle: item.title,
  itemSubTitle: item.subTitle,
  itemIdentifier: item.identifier,
  whole: messageListPickerSchema,
};

const headerFooter = quickRepliesHeaderFooterSchema.shape;
const headerEntry = headerFooter.header.def.innerType.def.element.shape;
const footerEntry = headerFooter.footer.def.innerType.def.element.shape;

/** quickRepliesHeaderFooter (docs/api.md, "quickRepliesHeaderFooter"). */
export const headerFooterFields = {
  headerText: headerEntry.text,
  imageUrl: headerEntry.imageUrl,
  documentUrl: headerEntry.documentUrl,
  documentName: headerEntry.documentName,
  videoUrl: headerEntry.videoUrl,
  footerText: footerEntry.text,
  whole: quickRepliesHeaderFooterSchema,
};

/** One quick reply under the profile's limits (its text bound is the tighter of the API's and the profile's). */
export function quickReplyFields(limits: Limits) {
  return quickReplySchemaFor(limits).shape;
}

export const greetingFields = greetingSchema.shape;
export const replyFields = replySchema.shape;
export const attachmentFields = attachmentSchema.shape;

/** The inactivity reason (docs/api.md, "Inactivity reason") and one of its translations. */
export const reasonFields = reasonSchema.shape;
export const translationFields = reasonTranslationSchema.shape;
