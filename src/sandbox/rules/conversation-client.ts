import type { Client, TenantView } from '../model.js';

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
