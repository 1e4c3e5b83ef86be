import type { Problem } from '../../errors.js';
import type { Client, Question, ReplyFields, TenantView, Thread } from '../model.js';
import { addressReply } from './addressing.js';
import { isRepeatedAnswerId } from './answer-id.js';
import { channelWarnings } from './channel.js';
import { emailAddressing } from './email-addressing.js';
import { withAgents } from './handover.js';
import type { Refusal } from './refusal.js';
import { secondAnswer } from './second-answer.js';

/** What the rules of a bot answer depend on besides the tenant: the sandbox's options. */
export interface ReplyRules {
  maxEvents: number;
  duplicates: 'strict' | 'soft';
}

/**
 * The outcome of a valid bot answer against the tenant (docs/sandbox.md, "Answers are checked
 * against the state"). `warnings` are the rules' own, added after the schema's.
 */
export type ReplyDecision =
  | { kind: 'refused'; refusal: Refusal; warnings: Problem[] }
  | {
      kind: 'repeat' | 'deliver';
      question: Question | undefined;
      thread: Thread | undefined;
      client: Client | undefined;
      warnings: Problem[];
    };

/**
 * The rules in their order: the question named must exist (404) and be one question (400); an
 * EMAIL question is addressed by sessionId and questionIndex (chatbot rule 2, 400); a repeated
 * answerId is 200, not delivered (chatbot rule 6), checked before the rules below so a retry of a
 * delivered answer never meets them; a thread or question with agents takes no answer (409); in
 * strict mode a second answer is refused (chatbot rule 7, 409); otherwise delivered. An answer
 * addressed by client to a client or thread not kept is delivered into one the store makes.
 */
export function decideReply(view: TenantView, reply: ReplyFields, rules: ReplyRules): ReplyDecision {
  const addressed = addressReply(view, reply, rules.maxEvents);
  if (!addressed.ok) return { kind: 'refused', refusal: addressed.refusal, warnings: [] };
  const { question, thread, client } = addressed;
  const warnings = [...addressed.warnings];
  const email = emailAddressing(reply, question, thread);
  if (email) return { kind: 'refused', refusal: email, warnings };
  warnings.push(...channelWarnings(reply, thread?.channel ?? 'WEB'));
  if (isRepeatedAnswerId(view, reply.answerId ?? null)) return { kind: 'repeat', question, thread, client, warnings };
  const refusal = withAgents(thread, question) ?? secondAnswer(reply, question, rules.duplicates);
  if (refusal) return { kind: 'refused', refusal, warnings };
  return { kind: 'deliver', question, thread, client, warnings };
}
