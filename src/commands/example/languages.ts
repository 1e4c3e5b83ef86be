/** The languages of `core example bot`, and the file of docs/examples/bot/ each prints (a leaf: the definition imports it). */
export const BOT_FILES = {
  node: 'bot.mjs',
  python: 'bot.py',
  typescript: 'bot.ts',
} as const;

export type BotLanguage = keyof typeof BOT_FILES;
export const BOT_LANGUAGES = Object.keys(BOT_FILES) as BotLanguage[];
