import { makeStyle } from '../../src/output/style.js';
import { describe, expect, it } from 'vitest';
import { cut, displayWidth, renderPreview, wrap } from '../../src/prompts/preview.js';

/** The composer's preview measures text as a terminal draws it: by grapheme, wide ones two columns. */
describe('the width of text on a terminal', () => {
  it.each([
    ['ASCII', 'Hello', 5],
    ['wide CJK characters', '日本語', 6],
    ['an emoji', '👋', 2],
    ['a family joined by zero-width joiners', '👨‍👩‍👧', 2],
    ['a thumbs-up with a skin tone', '👍🏽', 2],
    ['a flag (two regional indicators)', '🇩🇪', 2],
    ['a letter with a combining accent', 'e\u0301', 1],
    ['a heart with the emoji variation selector', '❤️', 2],
    ['Hangul syllables', '안녕', 4],
  ])('counts %s', (_name, text, width) => {
    expect(displayWidth(text)).toBe(width);
  });

  it('cuts between graphemes, never inside a joined emoji', () => {
    expect(cut('👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧', 5)).toBe('👨‍👩‍👧👨‍👩‍👧…');
    expect(cut('e\u0301e\u0301e\u0301e\u0301', 3)).toBe('e\u0301e\u0301…');
  });

  it('wraps a long run of joined emoji into lines of whole graphemes that fit', () => {
    const lines = wrap('👨‍👩‍👧'.repeat(7), 6);
    expect(lines).toEqual(['👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧', '👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧', '👨‍👩‍👧']);
  });

  it('draws a bubble whose right border lines up when the text holds joined emoji', () => {
    const picture = renderPreview(
      { text: 'Family plan 👨‍👩‍👧 for 3\nPrices in 日本円', quickReplies: [{ type: 'TEXT', text: 'Yes 👍🏽' }] },
      { title: 'Greeting', columns: 80, style: makeStyle(false) },
    );
    const lines = picture.split('\n');
    const top = lines.findIndex((line) => line.startsWith('╭'));
    const bottom = lines.findIndex((line) => line.startsWith('╰'));
    const bubble = lines.slice(top, bottom + 1);
    expect(bubble).toHaveLength(4);
    expect(new Set(bubble.map(displayWidth)).size).toBe(1);
  });
});
