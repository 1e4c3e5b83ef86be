import type { TenantView } from '../model.js';

/**
 * Chatbot rule 6 (docs/api.md): an answer whose answerId a delivered answer already claimed is
 * answered 200 and not delivered again. Checked before the agents and strict rules, so a retry of an
 * answer that got through is never turned into a 409. An answer without answerId is never a repeat.
 */
export function isRepeatedAnswerId(view: TenantView, answerId: string | null): boolean {
  return answerId !== null && view.answerIds.has(answerId);
}
