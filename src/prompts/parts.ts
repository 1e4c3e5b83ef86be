import { MAX_LIST_ITEMS, QUICK_REPLY_TYPES, validateField } from '../payload/index.js';
import { isRecord } from '../input/fields.js';
import { askField, askText, type FieldSchema } from './ask.js';
import type { Draft, Part } from './composer.js';
import { cut } from './preview.js';
import { headerFooterFields, listFields, quickReplyFields } from './schemas.js';
import { trimOf } from '../text/trim.js';

/**
 * The parts a greeting and a bot answer share: the text, quick-reply buttons, header and footer,
 * the interactive list, and settings. docs/api.md, "Greeting": these have "the same shape" as in the bot answer.
 */

/** A draft value as the text a prompt shows for it. */
export const asText = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'bigint' ? String(value) : undefined;

const records = (value: unknown): Record<string, unknown>[] => (Array.isArray(value) ? value.filter(isRecord) : []);

const quote = (value: unknown, width = 30): string => JSON.stringify(cut((asText(value) ?? '').split('\n')[0] ?? '', width));

/** The message text, on one line or in the editor. */
export function textPart(schema: FieldSchema, needed: (draft: Draft) => boolean): Part {
  return {
    key: 'text',
    name: 'Text',
    summary: (draft) => (draft.text === undefined ? undefined : quote(draft.text, 40)),
    needed,
    async ask(draft, env) {
      const text = await askText(env, { label: 'Text', schema, current: asText(draft.text) });
      if (text !== undefined) draft.text = text;
    },
  };
}

const QUICK_REPLY_EXTRAS = ['shown_text', 'callback_data', 'imageUrl', 'url'] as const;
const EXTRA_LABELS: Record<(typeof QUICK_REPLY_EXTRAS)[number], string> = {
  shown_text: "shown_text (sent as the customer's message when pressed)",
  callback_data: "callback_data (event name for the website's script API)",
  imageUrl: 'imageUrl (button icon)',
  url: 'url (link to an attached file)',
};

/** Quick-reply buttons ("Quick reply"), asked one after another. */
export const quickRepliesPart: Part = {
  key: 'quickReplies',
  name: 'Quick-reply buttons',
  offer: 'Quick-reply buttons',
  summary(draft) {
    const list = records(draft.quickReplies);
    if (draft.quickReplies === undefined) return undefined;
    return `${list.length} ${list.length === 1 ? 'button' : 'buttons'}${list.length ? `: ${list.map((q) => quote(q.text, 16)).join(', ')}` : ''}`;
  },
  remove(draft) {
    delete draft.quickReplies;
  },
  async ask(draft, env) {
    const fields = quickReplyFields(env.limits);
    const previous = records(draft.quickReplies);
    const max = env.limits.maxQuickReplies;
    const list: Record<string, unknown>[] = [];
    for (let i = 0; ; i++) {
      const before = previous[i] ?? {};
      const n = i + 1;
      const type = await env.prompter.select<string>({
        message: `Button ${n} type`,
        choices: QUICK_REPLY_TYPES.map((t) => ({
          value: t,
          name: t === 'TEXT' ? 'TEXT: sends a text message' : "CONTACT: asks for the customer's contact data",
          short: t,
        })),
        default: typeof before.type === 'string' ? before.type : 'TEXT',
      });
      const text = await askField(env, { label: `Button ${n} text`, schema: fields.text, current: asText(before.text) });
      // Fields the composer does not ask for (such as payload) stay as they were.
      const button: Record<string, unknown> = { ...before, type, text };
      const hadExtras = QUICK_REPLY_EXTRAS.some((k) => before[k] !== undefined);
      const more = await env.prompter.confirm({
        message: `Set shown_text, callback_data, imageUrl or url for button ${n}?`,
        default: hadExtras,
      });
      if (more) {
        for (const key of QUICK_REPLY_EXTRAS) {
          const value = await askField(env, {
            label: `  ${EXTRA_LABELS[key]}`,
            schema: fields[key],
            optional: true,
            current: asText(before[key]),
          });
          if (value === undefined) delete button[key];
          else button[key] = value;
        }
      }
      list.push(button);
      if (max !== undefined && list.length >= max) {
        env.prompter.write(env.style.dim(`That is the most buttons the profile allows (maxQuickReplies ${max}).\n`));
        break;
      }
      if (!(await env.prompter.confirm({ message: 'Add another button?', default: n < previous.length }))) break;
    }
    draft.quickReplies = list;
  },
};

type HeaderKind = 'text' | 'image' | 'document' | 'video' | 'none';

function headerKindOf(entry: Record<string, unknown> | undefined): HeaderKind {
  if (!entry) return 'text';
  if (entry.imageUrl !== undefined) return 'image';
  if (entry.documentUrl !== undefined || entry.documentName !== undefined) return 'document';
  if (entry.videoUrl !== undefined) return 'video';
  return 'text';
}

/** The header and footer of the quick replies ("quickRepliesHeaderFooter", instant-messenger channel only). */
export const headerFooterPart: Part = {
  key: 'quickRepliesHeaderFooter',
  name: 'Header and footer',
  offer: 'Header and footer (instant-messenger channels only)',
  summary(draft) {
    if (!isRecord(draft.quickRepliesHeaderFooter)) return draft.quickRepliesHeaderFooter === undefined ? undefined : 'set';
    const header = records(draft.quickRepliesHeaderFooter.header)[0];
    const footer = records(draft.quickRepliesHeaderFooter.footer)[0];
    const parts: string[] = [];
    if (header) parts.push(`header ${header.text !== undefined ? quote(header.text, 20) : headerKindOf(header)}`);
    if (footer) parts.push(`footer ${quote(footer.text, 20)}`);
    return parts.length > 0 ? parts.join(', ') : 'empty';
  },
  remove(draft) {
    delete draft.quickRepliesHeaderFooter;
  },
  async ask(draft, env) {
    const f = headerFooterFields;
    const before = isRecord(draft.quickRepliesHeaderFooter) ? draft.quickRepliesHeaderFooter : {};
    const beforeHeader = records(before.header)[0];
    const beforeFooter = records(before.footer)[0];
    const kind = await env.prompter.select<HeaderKind>({
      message: 'Header',
      choices: [
        { value: 'text', name: 'Text' },
        { value: 'image', name: 'An image (URL)', short: 'image' },
        { value: 'document', name: 'A document (URL and name)', short: 'document' },
        { value: 'video', name: 'A video (URL)', short: 'video' },
        { value: 'none', name: 'No header' },
      ],
      default: before.header === undefined && before.footer !== undefined ? 'none' : headerKindOf(beforeHeader),
    });
    const entry: Record<string, unknown> = {};
    const put = (key: string, value: string | undefined) => {
      if (value !== undefined) entry[key] = value;
    };
    if (kind === 'text')
      put('text', await askField(env, { label: 'Header text', schema: f.headerText, current: asText(beforeHeader?.text) }));
    if (kind === 'image')
      put('imageUrl', await askField(env, { label: 'Header image URL', schema: f.imageUrl, current: asText(beforeHeader?.imageUrl) }));
    if (kind === 'video')
      put('videoUrl', await askField(env, { label: 'Header video URL', schema: f.videoUrl, current: asText(beforeHeader?.videoUrl) }));
    if (kind === 'document') {
      put(
        'documentUrl',
        await askField(env, { label: 'Header document URL', schema: f.documentUrl, current: asText(beforeHeader?.documentUrl) }),
      );
      put(
        'documentName',
        await askField(env, {
          label: 'Header document name',
          schema: f.documentName,
          optional: true,
          current: asText(beforeHeader?.documentName),
        }),
      );
    }
    const footer = await askField(env, { label: 'Footer text', schema: f.footerText, optional: true, current: asText(beforeFooter?.text) });
    const value: Record<string, unknown> = {};
    if (kind !== 'none') value.header = [entry];
    if (footer !== undefined) value.footer = [{ text: footer }];
    if (Object.keys(value).length === 0) delete draft.quickRepliesHeaderFooter;
    else draft.quickRepliesHeaderFooter = value;
  },
};

/** A suggested item identifier from its title: `Track an order` → `track-an-order`. */
export function slug(title: string): string {
  const base = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-');
  const trimmed = trimOf(base, '-');
  return trimmed === '' ? 'item' : trimmed.slice(0, 40);
}

/** The interactive list ("messageListPicker", instant-messenger channel only). */
export const listPickerPart: Part = {
  key: 'messageListPicker',
  name: 'Interactive list',
  offer: 'Interactive list (instant-messenger channels only)',
  summary(draft) {
    if (draft.messageListPicker === undefined) return undefined;
    const picker = isRecord(draft.messageListPicker) ? draft.messageListPicker : {};
    const sections = records(picker.sections);
    const items = sections.reduce((n, s) => n + records(s.items).length, 0);
    return `${quote(picker.title, 20)}: ${sections.length} ${sections.length === 1 ? 'section' : 'sections'}, ${items} ${items === 1 ? 'item' : 'items'}`;
  },
  remove(draft) {
    delete draft.messageListPicker;
  },
  async ask(draft, env) {
    const f = listFields;
    const before = isRecord(draft.messageListPicker) ? draft.messageListPicker : {};
    const title = (await askField(env, { label: 'List button title', schema: f.title, current: asText(before.title) }))!;
    const beforeSections = records(before.sections);
    const sections: Record<string, unknown>[] = [];
    let total = 0;
    let full = false;
    for (let s = 0; !full; s++) {
      const beforeSection = beforeSections[s] ?? {};
      const sectionTitle = await askField(env, {
        label: `Section ${s + 1} title`,
        schema: f.sectionTitle,
        optional: true,
        current: asText(beforeSection.title),
      });
      const beforeItems = records(beforeSection.items);
      const items: Record<string, unknown>[] = [];
      const section: Record<string, unknown> = sectionTitle === undefined ? { items } : { title: sectionTitle, items };
      for (let i = 0; ; i++) {
        const beforeItem = beforeItems[i] ?? {};
        const label = `Item ${i + 1}`;
        const itemTitle = (await askField(env, { label: `${label} title`, schema: f.itemTitle, current: asText(beforeItem.title) }))!;
        const subTitle = await askField(env, {
          label: `${label} subtitle`,
          schema: f.itemSubTitle,
          optional: true,
          current: asText(beforeItem.subTitle),
        });
        const item: Record<string, unknown> = { title: itemTitle, ...(subTitle !== undefined ? { subTitle } : {}) };
        // The identifier must be unique across the whole message: that rule belongs to the whole
        // list, so the list so far, with this item in it, is checked by the list's own schema.
        const identifier = (await askField(env, {
          label: `${label} identifier (comes back in the customer's answer)`,
          schema: f.itemIdentifier,
          current: asText(beforeItem.identifier) ?? slug(itemTitle),
          check: (id) =>
            validateField(f.whole, { title, sections: [...sections, { ...section, items: [...items, { ...item, identifier: id }] }] }),
        }))!;
        items.push({ ...item, identifier });
        total += 1;
        if (total >= MAX_LIST_ITEMS) {
          env.prompter.write(env.style.dim(`That is the most items a list can hold (${MAX_LIST_ITEMS} across all sections).\n`));
          full = true;
          break;
        }
        if (!(await env.prompter.confirm({ message: 'Add another item to this section?', default: i + 1 < beforeItems.length }))) break;
      }
      sections.push(section);
      if (!full && !(await env.prompter.confirm({ message: 'Add another section?', default: s + 1 < beforeSections.length }))) break;
    }
    const beforeHeader = isRecord(before.header) ? before.header : {};
    const beforeFooter = isRecord(before.footer) ? before.footer : {};
    const header = await askField(env, {
      label: 'List header text',
      schema: f.headerText,
      optional: true,
      current: asText(beforeHeader.text),
    });
    const footer = await askField(env, {
      label: 'List footer text',
      schema: f.footerText,
      optional: true,
      current: asText(beforeFooter.text),
    });
    draft.messageListPicker = {
      ...(header !== undefined ? { header: { text: header } } : {}),
      ...(footer !== undefined ? { footer: { text: footer } } : {}),
      title,
      sections,
    };
  },
};

/** settings.blockInput and settings.masked (docs/api.md, "Bot answer", "Greeting"). */
export const settingsPart: Part = {
  key: 'settings',
  name: 'Settings',
  offer: 'Settings: block the input field, mask digits',
  summary(draft) {
    if (draft.settings === undefined) return undefined;
    const settings = isRecord(draft.settings) ? draft.settings : {};
    const on = [settings.blockInput === true ? 'input blocked' : '', settings.masked === true ? 'digits masked' : ''].filter(Boolean);
    return on.length > 0 ? on.join(', ') : 'none on';
  },
  remove(draft) {
    delete draft.settings;
  },
  async ask(draft, env) {
    const before = isRecord(draft.settings) ? draft.settings : {};
    const picked = await env.prompter.checkbox<'blockInput' | 'masked'>({
      message: `Settings ${env.style.dim('(Space to pick, Enter to accept)')}`,
      choices: [
        {
          value: 'blockInput',
          name: "blockInput: block the customer's input field (works only with quick replies)",
          short: 'blockInput',
          checked: before.blockInput === true,
        },
        {
          value: 'masked',
          name: "masked: mask the digits in the client's linked message",
          short: 'masked',
          checked: before.masked === true,
        },
      ],
    });
    const settings: Record<string, unknown> = { ...before };
    for (const key of ['blockInput', 'masked'] as const) {
      if (picked.includes(key)) settings[key] = true;
      else delete settings[key];
    }
    if (Object.keys(settings).length === 0) delete draft.settings;
    else draft.settings = settings;
  },
};
