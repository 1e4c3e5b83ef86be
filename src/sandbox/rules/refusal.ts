import type { NotDelivered } from '../events.js';
import type { Question } from '../model.js';

/** A bot answer the rules refuse: the status, why it is not delivered, the Error message, and the thread it is tied to. */
export interface Refusal {
  status: 400 | 404 | 409;
  notDelivered: NotDelivered;
  error: string;
  sessionId: string | null;
  /** The question the answer named, when the rules found it. */
  question?: Question | undefined;
}
