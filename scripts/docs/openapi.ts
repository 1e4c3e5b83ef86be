import { OPERATIONS, type Operation, type PayloadKind } from '../../src/operations.js';
import { jsonSchemaOf, type JsonSchema } from '../../src/schema/json-schema.js';

/**
 * An OpenAPI 3.1 description of the three operations of docs/api.md, for Postman, mock servers and
 * code generators. The request bodies are the JSON Schemas of `jsonSchemaOf` (OpenAPI 3.1 schemas
 * are JSON Schema 2020-12), so the document states the same rules `core` checks. Everything else
 * follows docs/api.md; where the API shows nothing (error statuses of the bot operations, the
 * integrator's credential format: docs/api.md, gaps 9 and 6), the document says so instead of inventing it.
 */

export interface OpenApiOptions {
  /** The package version, as info.version. */
  version: string;
  /** A realistic request body per operation, shown by Postman and served by mock servers. */
  examples?: Partial<Record<PayloadKind, unknown>>;
  /** A realistic body of the MESSAGE webhook. */
  messageExample?: unknown;
}

/** Component names of the request bodies. */
const BODY_COMPONENTS: Record<PayloadKind, string> = {
  reply: 'BotAnswer',
  greet: 'Greeting',
  reason: 'InactivityReason',
};

/**
 * A payload schema as a component: the request body the API takes, not a payload file of core (no
 * `$schema` property for editors, no `receivedAt: now`), and without `$schema` and `$id`, which belong
 * to a standalone document, not to one embedded in another.
 */
function component(kind: PayloadKind): JsonSchema {
  const { $schema: _schema, $id: _id, ...rest } = jsonSchemaOf(kind, 'body');
  return rest;
}

const errorSchema: JsonSchema = {
  title: 'Error',
  description: 'The error body of the service.',
  type: 'object',
  properties: {
    timestamp: { type: 'string', format: 'date-time', description: 'ISO 8601 UTC time of the error.' },
    method: { type: 'string', description: 'HTTP method of the request.' },
    uri: { type: 'string', description: 'Path of the request.' },
    message: { type: 'string', description: 'Human-readable message.' },
  },
};

const tenantParameter = {
  name: 'X-Tenant-Name',
  in: 'header',
  required: true,
  description: 'The tenant every request is scoped to (core: profile tenant, --tenant or CORE_TENANT).',
  schema: { type: 'string', minLength: 1 },
  example: 'acme',
};

const okResponse = {
  description: 'Accepted. The response has no body.',
  headers: { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } },
};

function errorResponse(description: string, example: JsonSchema) {
  // The API states X-Request-Id only for successful responses (docs/api.md, gap 27), so error responses do not promise it.
  return {
    description,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, example } },
  };
}

const CONTENT_TYPE_NOTE =
  'Content-Type: application/json is sent with every request; OpenAPI states it through the request body\'s media type rather than as a header parameter.';

const UNSHOWN_ERRORS =
  'Other statuses: the API shows none for this operation (not the status of a rejected repeated answer in strict mode, nor those for invalid input, missing credentials or insufficient permission).';

function requestBody(kind: PayloadKind, description: string, example: unknown) {
  return {
    required: true,
    description,
    content: {
      'application/json': {
        schema: { $ref: `#/components/schemas/${BODY_COMPONENTS[kind]}` },
        ...(example === undefined ? {} : { example }),
      },
    },
  };
}

/**
 * What the OpenAPI document says of each operation beyond its descriptor (src/operations.ts), which
 * gives the path, method, credential and request schema.
 */
const DESCRIPTIONS: Record<string, { operationId: string; tag: string; summary: string; description: string[]; body: string; responses?: Record<string, unknown> }> = {
  reply: {
    operationId: 'sendBotAnswer',
    tag: 'bot',
    summary: 'Send a bot answer (core reply)',
    description: [
      'Answers a client\'s message after a MESSAGE webhook (chatbot rule 1), or hands the thread over to agents with code SWITCH_TO_HUMAN.',
      'Addressed by coreClientId (preferred), questionId, sessionId with questionIndex, or the deprecated clientId;',
      'a message of type EMAIL is answered by sessionId and questionIndex (chatbot rule 2).',
      'An answerId received again is not delivered (chatbot rule 6). A second answer to a question that already has one is rejected in the strict mode and delivered in the soft mode, a system setting (chatbot rule 7).',
      CONTENT_TYPE_NOTE,
      UNSHOWN_ERRORS,
    ],
    body: 'The bot answer.',
  },
  greet: {
    operationId: 'sendGreeting',
    tag: 'bot',
    summary: "Send the bot's first, proactive greeting (core greet)",
    description: [
      'clientId or coreClientId must be given (greet rule 1); clientId works only for authorized clients, coreClientId for any (greet rule 2); when both are given, clientId takes priority (greet rule 3).',
      CONTENT_TYPE_NOTE,
      UNSHOWN_ERRORS,
    ],
    body: 'The greeting.',
  },
  reason: {
    operationId: 'updateInactivityReason',
    tag: 'inactivity reasons',
    summary: 'Update an existing inactivity reason (core reason update)',
    description: [
      'Updates the inactivity reason identified by its code. Permission required: INTEGRATOR.',
      'With active false the reason becomes unavailable; with true (the default) it is active.',
      CONTENT_TYPE_NOTE,
    ],
    body: 'The inactivity reason: its code and the fields to set.',
    responses: {
      '404': { $ref: '#/components/responses/ReasonNotFound' },
      '409': { $ref: '#/components/responses/TooManyActiveReasons' },
    },
  },
};

/**
 * The MESSAGE webhook (docs/sandbox.md, "The MESSAGE webhook"): what the platform POSTs to the bot. The
 * API shows no webhook payload, signing or retries (docs/api.md, gap 8): this is the format core sandbox
 * sends and core check-bot grades, signed as Standard Webhooks 1.0 describes. Its body is the JSON
 * Schema of `core schema message`, from the zod schema the sandbox builds every delivery through.
 */
const WEBHOOK_HEADERS: JsonSchema[] = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'The delivery\'s ID: the same on every attempt and on a redelivery, so a bot can tell a repeat (remember it, or make the answerId from it).',
    schema: { type: 'string', minLength: 1 },
    example: 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W',
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Unix seconds of this attempt. Refuse a timestamp more than five minutes from your clock, in either direction.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
    example: '1767607200',
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      'One or more space-separated signatures `v1,<base64>` (several during a key rotation: accept when any matches). ' +
      'Each is base64(HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<raw body>")), where key is the base64 after `whsec_` ' +
      'in the secret, decoded, and the raw body is the bytes as received, before any JSON parsing. Compare in constant time.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$' },
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
  {
    name: 'X-Tenant-Name',
    in: 'header',
    required: true,
    description: 'The tenant of the thread (also the body\'s tenant): send it back in X-Tenant-Name when you answer.',
    schema: { type: 'string', minLength: 1 },
    example: 'acme',
  },
];

function messageWebhook(example: unknown): JsonSchema {
  return {
    post: {
      operationId: 'receiveMessage',
      tags: ['webhooks'],
      summary: 'A customer message for the bot (MESSAGE webhook)',
      description: [
        'Sent to the bot\'s URL for each customer message; the bot answers it through POST /api/v1/chatbot (chatbot rule 1):',
        'by questionId, or by sessionId and questionIndex for a message of type EMAIL (chatbot rule 2), with identifiers exactly as received.',
        'Signed as Standard Webhooks 1.0 describes (the webhook-* headers): verify the signature over the raw body before parsing it.',
        'Identifiers are JSON integers up to 2^63 - 1: read them without losing digits.',
        'Fields not in the schema may be added later: ignore them.',
        'The API shows no webhook payload (docs/api.md, gap 8): this is the format of core sandbox, which core check-bot grades bots against.',
      ].join(' '),
      security: [{ webhookSignature: [] }],
      parameters: WEBHOOK_HEADERS,
      requestBody: {
        required: true,
        description: 'The MESSAGE delivery, exactly the bytes the signature covers.',
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/MessageDelivery' },
            ...(example === undefined ? {} : { example }),
          },
        },
      },
      responses: {
        '2XX': {
          description:
            'Delivered: the bot took the delivery (its answer comes through POST /api/v1/chatbot, before or after this response). ' +
            'The body of the response is not read beyond its first 2 KB and means nothing.',
        },
        default: {
          description:
            'Not delivered: any other status, a redirect (never followed), a time-out or a network failure. The delivery is sent again ' +
            'under the same webhook-id with a new timestamp and signature, after the Retry-After the bot sends or a doubling backoff. ' +
            'Answer 401 (or another 4xx; a redirect is no refusal) to a delivery whose signature or timestamp does not verify.',
        },
      },
    },
  };
}

/** The message body as a component, without the standalone document's `$schema` and `$id`. */
function messageComponent(): JsonSchema {
  const { $schema: _schema, $id: _id, ...rest } = jsonSchemaOf('message', 'body');
  return rest;
}

/** The path items, one operation each, from the descriptors. */
function paths(examples: Partial<Record<PayloadKind, unknown>>): JsonSchema {
  const items: JsonSchema = {};
  for (const operation of OPERATIONS) items[operation.path] = { [operation.method.toLowerCase()]: operationObject(operation, examples) };
  return items;
}

function operationObject(operation: Operation, examples: Partial<Record<PayloadKind, unknown>>): JsonSchema {
  const text = DESCRIPTIONS[operation.id];
  if (text === undefined || operation.payload === null) throw new Error(`no OpenAPI description for the operation ${operation.id}`);
  return {
    operationId: text.operationId,
    tags: [text.tag],
    summary: text.summary,
    description: text.description.join(' '),
    security: [{ [operation.credential === 'integrator' ? 'integratorAuth' : 'bearerAuth']: [] }],
    parameters: [{ $ref: '#/components/parameters/TenantName' }],
    requestBody: requestBody(operation.payload, text.body, examples[operation.payload]),
    responses: { '200': { $ref: '#/components/responses/Accepted' }, ...text.responses },
  };
}

export function openApiDocument(options: OpenApiOptions): JsonSchema {
  const examples = options.examples ?? {};
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Chatbot integration API',
      version: options.version,
      summary: 'Bot replies to customer messages, the bot greeting, and updating an agent inactivity reason.',
      description: [
        'The three operations of the chatbot integration API, as the command-line client core-cli knows them, and the MESSAGE webhook the platform sends the bot (the format of core sandbox).',
        'Generated from the schemas core checks every payload against (docs/schemas); the rules a JSON Schema cannot express are in the schemas\' descriptions.',
        'All paths begin with /api/v1; a version policy beyond this path segment is not shown by the API, nor are rate limits.',
      ].join(' '),
    },
    servers: [
      {
        url: '{base_url}',
        description: "The service's base URL (core: profile baseUrl, --base-url or CORE_BASE_URL).",
        variables: {
          base_url: { default: 'https://chat.example.com', description: 'Scheme, host and any path prefix, without a trailing slash.' },
        },
      },
    ],
    tags: [
      { name: 'bot', description: 'Operations of the bot: answers and greetings (Bearer token).' },
      { name: 'inactivity reasons', description: 'Inactivity reasons of agents (permission INTEGRATOR).' },
      { name: 'webhooks', description: 'What the platform sends the bot: the signed MESSAGE webhook.' },
    ],
    paths: paths(examples),
    webhooks: { MESSAGE: messageWebhook(options.messageExample) },
    components: {
      schemas: {
        BotAnswer: component('reply'),
        Greeting: component('greet'),
        InactivityReason: component('reason'),
        MessageDelivery: messageComponent(),
        Error: errorSchema,
      },
      parameters: { TenantName: tenantParameter },
      headers: {
        RequestId: {
          description: 'The ID of the request, for support and logs (core prints it as requestId).',
          required: true,
          schema: { type: 'string', format: 'uuid' },
        },
      },
      responses: {
        Accepted: okResponse,
        ReasonNotFound: errorResponse('No inactivity reason with the given code; the message names the missing code.', {
          timestamp: '2026-01-31T09:30:00.123Z',
          method: 'PUT',
          uri: '/api/v1/inactivity/reasons',
          message: "no inactivity reason with code 'NOPE'",
        }),
        TooManyActiveReasons: errorResponse('The limit of active inactivity reasons would be exceeded (the limit is not shown by the API).', {
          timestamp: '2026-01-31T09:30:00.123Z',
          method: 'PUT',
          uri: '/api/v1/inactivity/reasons',
          message: 'too many active inactivity reasons',
        }),
      },
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: "The bot's access token: Authorization: Bearer <ACCESS_TOKEN>. How it is obtained, its lifetime and scope are not shown by the API.",
        },
        webhookSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'webhook-signature',
          description: [
            'Standard Webhooks 1.0: the platform signs each attempt with the webhook secret (whsec_ followed by base64; core sandbox prints it as CORE_WEBHOOK_SECRET).',
            'The bot verifies webhook-signature against webhook-id, webhook-timestamp and the raw body; it is not a key the bot sends.',
          ].join(' '),
        },
        integratorAuth: {
          type: 'http',
          scheme: 'bearer',
          description: [
            'The operation requires the permission INTEGRATOR; the API does not show the credential\'s format.',
            'core sends the profile\'s integratorToken (else its token) as a Bearer token; when your service expects another form, set the whole Authorization header instead (a profile\'s headers in core).',
          ].join(' '),
        },
      },
    },
  };
}
