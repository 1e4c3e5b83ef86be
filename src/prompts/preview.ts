import stringWidth from 'string-width';
import type { Style } from '../output/style.js';
import { isRecord } from '../input/fields.js';

/**
 * A terminal picture of a message as the customer would see it: the bubble (header, attachments,
 * text, footer), the quick-reply buttons under it, and the interactive list with its button and
 * entries. It draws whatever the draft holds, valid or not: the problems are listed under it.
 */

export interface PreviewOptions {
  /** The line above the picture, such as "Greeting to coreClientId 42". */
  title: string;
  /** The terminal's width; the picture is at most 64 columns wide and fits a narrower terminal. */
  columns: number;
  /** Colours, and the glyphs of the picture (boxes, marks): ASCII under a locale that is not UTF-8. */
  style: Style;
}

const MAX_WIDTH = 64;
const MIN_WIDTH = 24;

/**
 * Columns text takes on a terminal, counted by grapheme (what the reader sees as one character): a
 * family emoji joined with zero-width joiners is one picture two columns wide, a letter with a
 * combining accent one column. string-width counts them as terminals draw them.
 */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

let segmenter: Intl.Segmenter | undefined;

/** The graphemes of text, in order. */
function graphemes(text: string): string[] {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return Array.from(segmenter.segment(text), (part) => part.segment);
}

/** Cuts text to `width` columns, marking the cut with an ellipsis (`...` in ASCII). */
export function cut(text: string, width: number, ellipsis = '…'): string {
  if (displayWidth(text) <= width) return text;
  const room = width - displayWidth(ellipsis);
  let out = '';
  let used = 0;
  for (const grapheme of graphemes(text)) {
    const w = stringWidth(grapheme);
    if (used + w > room) break;
    out += grapheme;
    used += w;
  }
  return `${out}${ellipsis}`;
}

/** Wraps text to `width` columns at spaces, breaking words longer than a line; keeps the text's own line breaks. */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.replace(/\r\n?/g, '\n').split('\n')) {
    let line = '';
    for (const word of paragraph.split(/ +/)) {
      let rest = word;
      while (displayWidth(rest) > width) {
        if (line !== '') {
          lines.push(line);
          line = '';
        }
        let head = '';
        let used = 0;
        for (const grapheme of graphemes(rest)) {
          const w = stringWidth(grapheme);
          if (used + w > width && head !== '') break;
          head += grapheme;
          used += w;
        }
        lines.push(head);
        rest = rest.slice(head.length);
      }
      if (line === '') line = rest;
      else if (displayWidth(line) + 1 + displayWidth(rest) <= width) line += ` ${rest}`;
      else {
        lines.push(line);
        line = rest;
      }
    }
    lines.push(line);
  }
  return lines;
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : value === undefined ? undefined : String(value));

/** A box around lines of plain text (already wrapped), each line styled after it is padded. */
function box(lines: { text: string; paint?: (s: string) => string }[], inner: number, style: Style): string[] {
  const border = (s: string) => style.gray(s);
  const b = style.glyphs.box;
  const out = [border(`${b.topLeft}${b.horizontal.repeat(inner + 2)}${b.topRight}`)];
  for (const line of lines) {
    const pad = ' '.repeat(Math.max(0, inner - displayWidth(line.text)));
    out.push(`${border(b.vertical)} ${line.paint ? line.paint(line.text) : line.text}${pad} ${border(b.vertical)}`);
  }
  out.push(border(`${b.bottomLeft}${b.horizontal.repeat(inner + 2)}${b.bottomRight}`));
  return out;
}

/** Quick-reply buttons as small boxes, as many on a row as fit. */
function buttons(labels: string[], width: number, style: Style): string[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let used = 0;
  for (const raw of labels) {
    const label = cut(raw, width - 4, style.glyphs.ellipsis);
    const w = displayWidth(label) + 4;
    if (row.length > 0 && used + 1 + w > width) {
      rows.push(row);
      row = [];
      used = 0;
    }
    row.push(label);
    used += (row.length > 1 ? 1 : 0) + w;
  }
  if (row.length > 0) rows.push(row);
  const out: string[] = [];
  for (const labelsInRow of rows) {
    const b = style.glyphs.box;
    const top = labelsInRow.map((l) => style.cyan(`${b.topLeft}${b.horizontal.repeat(displayWidth(l) + 2)}${b.topRight}`)).join(' ');
    const middle = labelsInRow.map((l) => `${style.cyan(b.vertical)} ${style.bold(l)} ${style.cyan(b.vertical)}`).join(' ');
    const bottom = labelsInRow
      .map((l) => style.cyan(`${b.bottomLeft}${b.horizontal.repeat(displayWidth(l) + 2)}${b.bottomRight}`))
      .join(' ');
    out.push(top, middle, bottom);
  }
  return out;
}

function headerLines(value: unknown, inner: number, style: Style): { text: string; paint?: (s: string) => string }[] {
  const lines: { text: string; paint?: (s: string) => string }[] = [];
  if (!Array.isArray(value)) return lines;
  const g = style.glyphs;
  for (const entry of value) {
    if (!isRecord(entry)) continue;
    if (entry.imageUrl !== undefined)
      lines.push({ text: cut(`${g.image} image ${str(entry.imageUrl)}`, inner, g.ellipsis), paint: style.magenta });
    if (entry.videoUrl !== undefined)
      lines.push({ text: cut(`${g.video} video ${str(entry.videoUrl)}`, inner, g.ellipsis), paint: style.magenta });
    if (entry.documentUrl !== undefined || entry.documentName !== undefined) {
      lines.push({
        text: cut(`${g.document} ${str(entry.documentName) ?? 'document'} ${str(entry.documentUrl) ?? ''}`.trim(), inner, g.ellipsis),
        paint: style.magenta,
      });
    }
    if (entry.text !== undefined) for (const line of wrap(str(entry.text) ?? '', inner)) lines.push({ text: line, paint: style.bold });
  }
  return lines;
}

function footerLines(value: unknown, inner: number, style: Style): { text: string; paint?: (s: string) => string }[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter(isRecord)
    .flatMap((entry) => wrap(str(entry.text) ?? '', inner))
    .map((text) => ({ text, paint: style.dim }));
}

function attachmentLines(value: unknown, inner: number, style: Style): { text: string; paint?: (s: string) => string }[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).map((a) => {
    const name = str(a.name) ?? str(a.url) ?? 'file';
    const type = str(a.type);
    return { text: cut(`${style.glyphs.document} ${name}${type ? ` (${type})` : ''}`, inner, style.glyphs.ellipsis), paint: style.magenta };
  });
}

/** The interactive list: its button, then the list as it opens, with its own header and footer. */
function listLines(picker: Record<string, unknown>, width: number, style: Style): string[] {
  const inner = width - 4;
  const lines: { text: string; paint?: (s: string) => string }[] = [];
  const header = isRecord(picker.header) ? str(picker.header.text) : undefined;
  const footer = isRecord(picker.footer) ? str(picker.footer.text) : undefined;
  if (header) for (const line of wrap(header, inner)) lines.push({ text: line, paint: style.bold });
  const sections = Array.isArray(picker.sections) ? picker.sections.filter(isRecord) : [];
  for (const section of sections) {
    const title = str(section.title);
    if (title) lines.push({ text: cut(title.toUpperCase(), inner, style.glyphs.ellipsis), paint: style.dim });
    const items = Array.isArray(section.items) ? section.items.filter(isRecord) : [];
    for (const item of items) {
      lines.push({ text: cut(`${style.glyphs.listItem} ${str(item.title) ?? ''}`, inner, style.glyphs.ellipsis) });
      const sub = str(item.subTitle);
      if (sub) for (const line of wrap(sub, inner - 2)) lines.push({ text: `  ${line}`, paint: style.dim });
    }
  }
  if (footer) for (const line of wrap(footer, inner)) lines.push({ text: line, paint: style.dim });
  const out = buttons([`${style.glyphs.listButton} ${str(picker.title) ?? 'list'}`], width, style);
  if (lines.length > 0) out.push(...box(lines, Math.max(...lines.map((l) => displayWidth(l.text)), 10), style));
  return out;
}

/** Draws the message. */
export function renderPreview(payload: Record<string, unknown>, options: PreviewOptions): string {
  const { style } = options;
  const width = Math.max(MIN_WIDTH, Math.min(MAX_WIDTH, options.columns - 4));
  const inner = width - 4;
  const headerFooter = isRecord(payload.quickRepliesHeaderFooter) ? payload.quickRepliesHeaderFooter : {};
  const bubble = [...headerLines(headerFooter.header, inner, style), ...attachmentLines(payload.attachments, inner, style)];
  if (bubble.length > 0) bubble.push({ text: '' });
  const text = str(payload.text) ?? str(payload.formattedText);
  if (text === undefined) bubble.push({ text: '(no text yet)', paint: style.red });
  else for (const line of wrap(text, inner)) bubble.push({ text: line });
  const footer = footerLines(headerFooter.footer, inner, style);
  if (footer.length > 0) bubble.push({ text: '' }, ...footer);

  const lines = [style.bold(options.title)];
  const bubbleWidth = Math.min(inner, Math.max(...bubble.map((l) => displayWidth(l.text)), 20));
  lines.push(...box(bubble, bubbleWidth, style));

  const replies = Array.isArray(payload.quickReplies) ? payload.quickReplies.filter(isRecord) : [];
  if (replies.length > 0) {
    lines.push(
      ...buttons(
        replies.map((q) => `${q.type === 'CONTACT' ? `${style.glyphs.contact} ` : ''}${str(q.text) ?? ''}`),
        width,
        style,
      ),
    );
  }
  if (isRecord(payload.messageListPicker)) lines.push(...listLines(payload.messageListPicker, width, style));

  const notes: string[] = [];
  if (isRecord(payload.settings)) {
    if (payload.settings.blockInput === true) notes.push('input field blocked');
    if (payload.settings.masked === true) notes.push('digits masked');
  }
  if (notes.length > 0) lines.push(style.dim(notes.join(style.glyphs.separator)));
  return `${lines.join('\n')}\n`;
}
