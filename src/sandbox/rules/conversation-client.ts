import { flatten } from '../../payload/json.js';
import type { Channel, EventFields } from '../events.js';
import type { Client, RandomIds, TenantView } from '../model.js';
import { freeCoreClientId } from './ids.js';

/**
 * The client a new conversation belongs to (POST /_sandbox/conversations): the one named by
 * coreClientId or clientId, or a new one (made with the identifiers given). A coreClientId and a
 * clientId of two different clients, or a coreClientId whose client has another clientId: 400.
 * A known client without clientId takes the clientId given.
 */
export type ConversationClient =
  | { ok: true; client: Client; adoptClientId: string | undefined }
  | { ok: true; client: undefined; make: { coreClientId: bigint | undefined; clientId: string | undefined } }
  | { ok: false; status: 400; message: string };

export function conversationClient(
  view: TenantView,
  request: { coreClientId?: bigint | undefined; clientId?: string | undefined },
): ConversationClient {
  const { coreClientId, clientId } = request;
  const byCore = coreClientId === undefined ? undefined : view.clients.get(coreClientId);
  const byExternal = clientId === undefined ? undefined : view.clientsByExternalId.get(clientId);
  if (byCore && byExternal && byCore !== byExternal) {
    return {
      ok: false,
      status: 400,
      message: `coreClientId ${byCore.coreClientId} and clientId '${clientId}' are two different clients (clientId '${clientId}' is coreClientId ${byExternal.coreClientId})`,
    };
  }
  if (byCore && clientId !== undefined && byCore.clientId !== null && byCore.clientId !== clientId) {
    return {
      ok: false,
      status: 400,
      message: `coreClientId ${byCore.coreClientId} is the client with clientId '${byCore.clientId}', not '${clientId}'`,
    };
  }
  const client = byCore ?? byExternal;
  if (client === undefined) return { ok: true, client: undefined, make: { coreClientId, clientId } };
  return { ok: true, client, adoptClientId: client.clientId === null ? clientId : undefined };
}

/** The event of a new thread of a client (made by it when the tenant does not keep the client). */
export function threadStarted(
  client: { coreClientId: bigint; clientId: string | null },
  channel: Channel,
  by: 'customer' | 'reply' | 'greeting',
  ids: RandomIds,
): EventFields<'conversation.started'> {
  const { coreClientId, clientId } = client;
  return { type: 'conversation.started', sessionId: ids.sessionId(), channel, coreClientId, clientId, by };
}

/**
 * POST /_sandbox/conversations: a new thread of the client the request names (conversationClient),
 * made with the next coreClientId when it names none; or the 400 that refuses it.
 */
export function startConversation(
  view: TenantView,
  request: { channel: Channel; coreClientId?: bigint | undefined; clientId?: string | undefined },
  ids: RandomIds,
): { ok: true; event: EventFields<'conversation.started'> } | { ok: false; status: 400; message: string } {
  const decided = conversationClient(view, request);
  if (!decided.ok) return decided;
  const client =
    decided.client === undefined
      ? { coreClientId: decided.make.coreClientId ?? freeCoreClientId(view), clientId: flatOrNull(decided.make.clientId) }
      : { coreClientId: decided.client.coreClientId, clientId: decided.client.clientId ?? flatOrNull(decided.adoptClientId) };
  return { ok: true, event: threadStarted(client, request.channel, 'customer', ids) };
}

/** A clientId as the sandbox keeps it: a flat string (src/payload/json.ts, `flatten`), or null. */
export const flatOrNull = (clientId: string | null | undefined): string | null => (clientId == null ? null : flatten(clientId));
