import http from 'node:http';
import https from 'node:https';
import type { RequestOptions } from 'node:https';
import type { Duplex } from 'node:stream';
import { HttpProxyAgent, HttpsProxyAgent } from 'hpagent';
import { redactProxyUrl } from './proxy.js';

/**
 * The connection agents of a request, made in one place for every sending path (a single reply or
 * greeting, and the reason batch with its kept-alive pool): direct or through a proxy, with the
 * trust store and certificate checking that apply. Node's agents apply their own options over a
 * request's, so what is set here holds for every connection they open.
 */

export interface TransportOptions {
  /** The proxy to go through, or null for a direct connection. */
  proxy: URL | null;
  /** The whole trust store to use (default store plus a private CA), or null for Node's default. */
  ca: string[] | null;
  /** --insecure: certificates are not checked. Never set otherwise. */
  insecure: boolean;
}

export interface PoolOptions {
  /** Keep connections open between requests (a batch). */
  keepAlive: boolean;
  /** The most connections at once to one host. */
  maxSockets?: number;
}

export interface Agents {
  http: http.Agent;
  https: https.Agent;
}

/**
 * hpagent's CONNECT tunnel. hpagent reports a refused tunnel as a bare "Bad response: 407"; here it
 * becomes an error with the code EPROXY and a message naming the proxy (without its credentials).
 */
class TunnelAgent extends HttpsProxyAgent {
  override createConnection(options: RequestOptions, callback?: (error: Error | null, socket: Duplex) => void): Duplex | null | undefined {
    const target = `${String(options.host)}:${String(options.port)}`;
    const proxy = (this as unknown as { proxy: URL }).proxy;
    return super.createConnection(options, (error, socket) => {
      const status = error ? /^Bad response: (\d{3})$/.exec(error.message) : null;
      if (!error || !status) return callback?.(error, socket);
      const code = Number(status[1]);
      const why = code === 407 ? ': proxy authentication required; check the user name and password in the proxy URL' : '';
      const refused = new Error(`the proxy ${redactProxyUrl(proxy)} answered ${code} to CONNECT ${target}${why}`);
      callback?.(Object.assign(refused, { code: 'EPROXY' }), socket);
    });
  }
}

/**
 * Plain http through a proxy, the way proxies expect it: the request goes to the proxy with the
 * absolute URL as its target (`POST http://host/path HTTP/1.1`), not through a CONNECT tunnel,
 * which many proxies allow to port 443 only. hpagent tunnels http too, hence this small agent.
 */
class AbsoluteUriAgent extends http.Agent {
  private readonly proxy: URL;
  private readonly authorization: string | undefined;

  constructor(proxy: URL, options: http.AgentOptions) {
    super(options);
    this.proxy = proxy;
    if (proxy.username !== '' || proxy.password !== '') {
      const user = decodeURIComponent(proxy.username);
      const password = decodeURIComponent(proxy.password);
      this.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    }
  }

  // Not in @types/node's Agent, but the method every request goes through (Node's lib/_http_agent.js).
  addRequest(request: http.ClientRequest, options: http.RequestOptions & Record<string, unknown>): void {
    const host = String(options.host ?? options.hostname ?? 'localhost');
    // The default port is left out, as in the URL the user wrote.
    const given = options.port === undefined || options.port === null ? '' : String(options.port);
    const port = given === '' || given === '80' ? '' : `:${given}`;
    const hostPart = host.includes(':') ? `[${host}]` : host;
    request.path = `http://${hostPart}${port}${request.path}`;
    if (this.authorization) request.setHeader('Proxy-Authorization', this.authorization);
    const proxyPort = this.proxy.port === '' ? (this.proxy.protocol === 'https:' ? 443 : 80) : Number(this.proxy.port);
    // Node's Agent.addRequest has a further positional form; the options object is the one used here.
    (http.Agent.prototype as unknown as { addRequest: (r: unknown, o: unknown) => void }).addRequest.call(this, request, {
      ...options,
      host: this.proxy.hostname.replace(/^\[|\]$/g, ''),
      hostname: this.proxy.hostname.replace(/^\[|\]$/g, ''),
      port: proxyPort,
      servername: undefined,
    });
  }
}

/**
 * The http and https agents for one invocation. A proxy applies to both schemes (the caller chose
 * it for the base URL's scheme); the trust store and --insecure apply to https.
 */
export function createAgents(options: TransportOptions, pool: PoolOptions = { keepAlive: false }): Agents {
  const base = { keepAlive: pool.keepAlive, ...(pool.maxSockets !== undefined ? { maxSockets: pool.maxSockets } : {}) };
  // rejectUnauthorized is always set, so that NODE_TLS_REJECT_UNAUTHORIZED=0 in the environment
  // cannot turn the checks off: only --insecure does.
  const tlsOptions = { ...(options.ca ? { ca: options.ca } : {}), rejectUnauthorized: !options.insecure };
  if (options.proxy === null) {
    return { http: new http.Agent(base), https: new https.Agent({ ...base, ...tlsOptions }) };
  }
  const proxyTls = options.proxy.protocol === 'https:' ? { proxyRequestOptions: tlsOptions } : {};
  return {
    // Absolute-URI requests need a plain connection to the proxy; through an https proxy, plain http
    // goes in a CONNECT tunnel instead.
    http:
      options.proxy.protocol === 'https:'
        ? new HttpProxyAgent({ ...base, proxy: options.proxy, ...proxyTls })
        : new AbsoluteUriAgent(options.proxy, base),
    https: new TunnelAgent({
      ...base,
      ...tlsOptions,
      proxy: options.proxy,
      // An https proxy is checked against the same trust store as the service.
      ...proxyTls,
    }),
  };
}

export function destroyAgents(agents: Agents): void {
  agents.http.destroy();
  agents.https.destroy();
}
