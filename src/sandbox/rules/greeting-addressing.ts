import type { Greeting } from '../../payload/index.js';
import type { Channel, EventFields, NewEvent } from '../events.js';
import type { Client, RandomIds, TenantView } from '../model.js';
import { channelWarnings } from './channel.js';
import { flatOrNull, threadStarted } from './conversation-client.js';
import { freeCoreClientId } from './ids.js';
import type { RequestMeta } from './reply.js';

/**
 * Where a greeting goes (docs/api.md, greet rules 1-3): to the client named by clientId, which takes
 * priority, else by coreClientId; a client the sandbox does not know is made (with the coreClientId
 * given, unless a client already has it). The greeting goes into the client's latest thread, or a
 * new WEB thread. Greetings are always delivered.
 */
export type GreetingAddress =
  | { addressedBy: string[]; client: Client; make?: undefined }
  | { addressedBy: string[]; client?: undefined; make: { coreClientId: bigint | undefined; clientId: string | undefined } };

export function addressGreeting(view: TenantView, greeting: { clientId?: string | null; coreClientId?: bigint | null }): GreetingAddress {
  const { clientId, coreClientId } = greeting;
  const addressedBy = clientId != null ? ['clientId'] : coreClientId != null ? ['coreClientId'] : [];
  const client =
    clientId != null ? view.clientsByExternalId.get(clientId) : coreClientId != null ? view.clients.get(coreClientId) : undefined;
  if (client !== undefined) return { addressedBy, client };
  const core = coreClientId != null && !view.clients.has(coreClientId) ? coreClientId : undefined;
  return { addressedBy, make: { coreClientId: core, clientId: clientId ?? undefined } };
}

/**
 * The events of a valid greeting: into the client's latest thread, else a new WEB thread (and the
 * client, when the tenant does not keep it), then the greeting, always delivered.
 */
export function greetingEvents(view: TenantView, greeting: Greeting, meta: RequestMeta, ids: RandomIds): NewEvent[] {
  const address = addressGreeting(view, greeting);
  const client = address.client ?? {
    coreClientId: address.make.coreClientId ?? freeCoreClientId(view),
    clientId: flatOrNull(address.make.clientId),
  };
  const events: NewEvent[] = [];
  const thread = address.client?.latest ?? undefined;
  let into: { sessionId: string; channel: Channel };
  if (thread === undefined) {
    const started = threadStarted(client, 'WEB', 'greeting', ids);
    events.push(started);
    into = started;
  } else into = thread;
  const { requestId, body, userAgent } = meta;
  const event: EventFields<'greeting'> = {
    type: 'greeting',
    kind: 'greeting',
    ...{ sessionId: into.sessionId, requestId, status: 200, error: null, answerId: null, addressedBy: address.addressedBy },
    ...{ delivered: true, notDelivered: null, questionAlreadyAnswered: false, coreClientId: client.coreClientId },
    ...{ warnings: [...meta.warnings, ...channelWarnings(greeting, into.channel)], body, userAgent, during: [] },
  };
  events.push(event);
  return events;
}
