/** The shells `core completion` writes scripts for. No imports, so the command's definition stays light. */
export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;
export type Shell = (typeof SHELLS)[number];
