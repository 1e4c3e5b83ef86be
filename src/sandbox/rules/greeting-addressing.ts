import type { Client, TenantView } from '../model.js';

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
