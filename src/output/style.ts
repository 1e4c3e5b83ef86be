import { Chalk, type ChalkInstance } from 'chalk';
import { UNICODE_GLYPHS, type Glyphs } from './glyphs.js';

/** A chalk instance for one stream, with the glyphs core draws there (src/output/glyphs.ts). */
export type Style = ChalkInstance & { readonly glyphs: Glyphs };

/**
 * A chalk instance for one stream. chalk does not read NO_COLOR itself, so its level comes from the
 * context's own decision (terminal, NO_COLOR, FORCE_COLOR, --no-color); the glyphs come from the
 * context too (the locale: `ctx.glyphs`).
 */
export function makeStyle(enabled: boolean, glyphs: Glyphs = UNICODE_GLYPHS): Style {
  return Object.assign(new Chalk({ level: enabled ? 1 : 0 }), { glyphs });
}
