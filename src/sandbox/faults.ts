import { randomUUID } from 'node:crypto';
import type { Problem } from '../errors.js';
import { isRecord } from '../payload/json.js';
import { invalid, readJsonObject, type Answer, type Exchange } from './exchange.js';
import type { SandboxState } from './state.js';

/**
 * One-shot faults (docs/sandbox.md, "Probes"): `POST /_sandbox/probes/faults` `{"sessionId", "status"?}`
 * arms a fault: the next POST /api/v1/chatbot that names the thread (its sessionId, one of its
 * questions or its client) is answered `status` (default 503, with Retry-After: 1) instead of being
 * handled. `GET /_sandbox/probes/faults/{faultId}` says whether it fired, and the answerId of the
 * request it refused, so a retry can be compared with it.
 */

/** Faults kept at once; the oldest are forgotten first. */
const MAX_FAULTS = 1000;

interface Fault {
  faultId: string;
  tenant: string;
  sessionId: string;
  status: number;
  armedAt: string;
  triggered: boolean;
  triggeredAt: string | null;
  answerId: string | null;
  requestId: string | null;
}

const view = (fault: Fault) => ({
  faultId: fault.faultId,
  sessionId: fault.sessionId,
  status: fault.status,
  armedAt: fault.armedAt,
  triggered: fault.triggered,
  triggeredAt: fault.triggeredAt,
  answerId: fault.answerId,
  requestId: fault.requestId,
});

/** Every problem with the body of POST /_sandbox/probes/faults. */
function armProblems(body: Record<string, unknown>): Problem[] {
  const problems: Problem[] = [];
  for (const field of Object.keys(body)) {
    if (field !== 'sessionId' && field !== 'status')
      problems.push({ path: field, message: 'unknown field; this request takes sessionId, status' });
  }
  if (typeof body.sessionId !== 'string' || body.sessionId === '')
    problems.push({ path: 'sessionId', message: 'must be a non-empty string' });
  const status = body.status ?? 503n;
  if (typeof status !== 'bigint' || !(status === 429n || (status >= 500n && status <= 599n))) {
    problems.push({ path: 'status', message: 'must be 429 or a status from 500 to 599 (what a retry is for)' });
  }
  return problems;
}

/** The faults armed and fired, at most MAX_FAULTS of them. */
export class Faults {
  private readonly faults = new Map<string, Fault>();
  /** The armed faults by sessionId, oldest first. */
  private readonly armed = new Map<string, Fault[]>();

  constructor(private readonly state: SandboxState) {}

  /** POST /_sandbox/probes/faults */
  async arm(ex: Exchange): Promise<Answer> {
    const read = await readJsonObject(ex);
    if (!read.ok) return read.answer;
    const body = read.value;
    const problems = armProblems(body);
    if (problems.length > 0) return invalid(problems);
    const thread = this.state.thread(body.sessionId as string);
    if (thread === undefined) {
      return { status: 404, error: `no conversation with sessionId '${String(body.sessionId)}'`, what: 'unknown conversation' };
    }
    const fault: Fault = {
      faultId: `fault_${randomUUID()}`,
      tenant: thread.tenant,
      sessionId: thread.sessionId,
      status: Number(body.status ?? 503n),
      armedAt: new Date().toISOString(),
      triggered: false,
      triggeredAt: null,
      answerId: null,
      requestId: null,
    };
    this.keep(fault);
    return {
      status: 201,
      tenant: thread.tenant,
      json: view(fault),
      what: `fault ${fault.faultId} armed: the next answer in ${fault.sessionId} gets ${fault.status}`,
    };
  }

  /** GET /_sandbox/probes/faults/{faultId} */
  show(ex: Exchange): Answer {
    const fault = this.faults.get(ex.params[0] ?? '');
    if (fault === undefined) return { status: 404, error: `no fault '${ex.params[0] ?? ''}'`, what: 'unknown fault' };
    return { status: 200, tenant: fault.tenant, json: view(fault), what: `fault ${fault.faultId}: ${fault.triggered ? 'fired' : 'armed'}` };
  }

  /**
   * The answer to a bot answer (POST /api/v1/chatbot) that meets an armed fault of the thread its
   * body names, or undefined. The fault fires once: it records the request and is disarmed.
   */
  intercept(ex: Exchange, tenant: string, body: unknown): Answer | undefined {
    if (this.armed.size === 0) return undefined;
    const sessionId = this.state.sessionOf(tenant, body);
    const fault = sessionId === null ? undefined : this.armed.get(sessionId)?.[0];
    if (fault === undefined || fault.tenant !== tenant) return undefined;
    this.disarm(fault);
    fault.triggered = true;
    fault.triggeredAt = new Date().toISOString();
    const answerId = isRecord(body) ? body.answerId : undefined;
    fault.answerId = typeof answerId === 'string' ? answerId : null;
    fault.requestId = ex.requestId;
    return {
      status: fault.status,
      error: `injected fault: this answer is refused once with ${fault.status} (${fault.faultId}, armed through POST /_sandbox/probes/faults); send it again with the same answerId`,
      headers: { 'Retry-After': '1' },
      what: `injected fault ${fault.status} (${fault.faultId})`,
    };
  }

  /** Keeps an armed fault, forgetting the oldest past MAX_FAULTS. */
  private keep(fault: Fault): void {
    this.faults.set(fault.faultId, fault);
    this.armed.set(fault.sessionId, [...(this.armed.get(fault.sessionId) ?? []), fault]);
    while (this.faults.size > MAX_FAULTS) {
      const oldest = this.faults.values().next().value as Fault;
      this.faults.delete(oldest.faultId);
      this.disarm(oldest);
    }
  }

  private disarm(fault: Fault): void {
    const left = (this.armed.get(fault.sessionId) ?? []).filter((other) => other !== fault);
    if (left.length === 0) this.armed.delete(fault.sessionId);
    else this.armed.set(fault.sessionId, left);
  }
}
