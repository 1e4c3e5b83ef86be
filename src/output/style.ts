import { Chalk, type ChalkInstance } from 'chalk';

/**
 * A chalk instance for one stream. chalk does not read NO_COLOR itself, so its level comes from the
 * context's own decision (terminal, NO_COLOR, FORCE_COLOR, --no-color).
 */
export function makeStyle(enabled: boolean): ChalkInstance {
  return new Chalk({ level: enabled ? 1 : 0 });
}

export type Style = ChalkInstance;
