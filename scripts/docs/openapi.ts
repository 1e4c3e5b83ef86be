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
        'The three operations of the chatbot integration API, as the command-line client core-cli knows them.',
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
    ],
    paths: paths(examples),
    components: {
      schemas: {
        BotAnswer: component('reply'),
        Greeting: component('greet'),
        InactivityReason: component('reason'),
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
