import type { SandboxOptions } from '../sandbox/options.js';
import { startLocalSandbox, type LocalSandbox } from '../sandbox/server.js';
import { inbound } from './inbound.js';
import type { WebhookMap } from './map.js';
import { outbound, type SendOn } from './outbound.js';

/**
 * A sandbox in bridge mode (`core bridge`, docs/bridge.md): the sandbox's page, events, checks and
 * handle, serving one tenant (the profile's), with the real platform on both sides: its MESSAGE
 * webhooks come in at POST /webhook and go to the bot (inbound.ts), the bot's API requests go out to
 * it once checked (outbound.ts).
 */

export interface BridgeOptions extends Omit<SandboxOptions, 'tenants' | 'botUrl' | 'maskPersonalData' | 'webhookSecret'> {
  /** The local secret deliveries to the bot are signed with (never the platform's). */
  webhookSecret: string;
  /** The profile's tenant: the one the bridge serves, and the one sent to the platform. */
  tenant: string;
  botUrl: string;
  /** The platform's webhook secret (the profile's webhookSecret), or null when not known. */
  platformSecret: string | null;
  map: WebhookMap;
  /** Sends one checked request on to the platform, with the profile's settings. */
  send: SendOn;
  /** Send on a request the sandbox refused for its payload or its rules. */
  forwardInvalid: boolean;
}

export type Bridge = LocalSandbox;

export async function startBridge(options: BridgeOptions): Promise<Bridge> {
  const { tenant, platformSecret, map, send, forwardInvalid, ...sandboxOptions } = options;
  let stopInbound = () => {};
  const sandbox = await startLocalSandbox(
    // Saved tests of real conversations hold no personal data unless asked (docs/bridge.md, "Tests").
    { ...sandboxOptions, tenants: [tenant], botUrl: options.botUrl, webhookSecret: options.webhookSecret, maskPersonalData: true },
    ({ state, sender }) => {
      const webhook = inbound({
        state,
        sender,
        tenant,
        localSecret: options.webhookSecret,
        platformSecret,
        map,
      });
      stopInbound = () => webhook.close();
      return {
        routes: [['/webhook', { POST: webhook.handler }]],
        forward: outbound({ state, tenant, send, forwardInvalid }),
        attempted: (delivery, attempt) => webhook.attempted(delivery, attempt),
      };
    },
  );
  return {
    ...sandbox,
    close: () => {
      stopInbound();
      return sandbox.close();
    },
  };
}
