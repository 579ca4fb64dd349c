import type { Hono } from 'hono';
import * as z from 'zod';
import type { HttpEnv } from '../http/http-env.ts';
import {
  DRAFT_REQUEST,
  DRAFT_VIEW,
  ERROR_BODY,
  INBOX_LIST,
  KEY_CREATE_REQUEST,
  KEY_CREATED,
  KEY_LIST,
  KEY_CHANGE_REQUEST,
  KEY_VIEW,
} from './rest-schemas.ts';

type Json = Record<string, unknown>;

/** A zod schema as OpenAPI 3.1 wants it: JSON Schema 2020-12, without the `$schema` member. */
function schemaOf(schema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io }) as Json;
  return rest;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** An error response whose `error` is one of these codes (contract §7). */
function errors(description: string, codes: readonly string[]): Json {
  return {
    description,
    content: {
      'application/json': {
        schema: {
          allOf: [ref('Error'), { type: 'object', properties: { error: { enum: [...codes] } } }],
        },
      },
    },
  };
}

const json = (schema: Json, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

/** What every API-key route may answer besides its own responses. */
const AGENT_ERRORS = {
  '401': {
    ...errors('No key, or a wrong or revoked key.', ['missing_api_key', 'invalid_api_key']),
    headers: { 'WWW-Authenticate': { schema: { type: 'string' }, description: 'Bearer realm="api"…' } },
  },
  '402': errors('The trial ended or a payment failed.', ['payment_required']),
  '429': {
    ...errors('Too many requests for this key.', ['rate_limited']),
    headers: { 'Retry-After': { schema: { type: 'string' }, description: 'Seconds to wait.' } },
  },
};

/** What every owner-session route may answer besides its own responses. */
const OWNER_ERRORS = {
  '401': errors('Not signed in as the account owner.', ['owner_session_required']),
  '403': (() => {
    const e = errors(
      'A bearer credential was sent (keys are managed only by the signed-in owner, never with a key), or the ' +
        'CSRF check failed (an HTML page).',
      ['owner_session_required'],
    );
    return { ...e, content: { ...(e['content'] as Json), 'text/html': { schema: { type: 'string' } } } };
  })(),
};

/**
 * The OpenAPI 3.1 description of `/api`, built once from the zod schemas the routes parse and answer with
 * (rest-schemas.ts), with every error code of contract §7 on the routes that can answer it.
 */
export function openApiDocument(baseUrl: string, secureCookies: boolean): Json {
  const session = secureCookies ? '__Host-it_session' : 'it_session';
  return {
    openapi: '3.1.0',
    info: {
      title: 'Inbox Triage REST API',
      version: '0.1.0',
      description:
        'The small REST surface of Inbox Triage: list inboxes and write drafts with an API key (never send); ' +
        'manage API keys as the signed-in owner. Every feature is on the MCP server at /mcp.',
    },
    servers: [{ url: baseUrl }],
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key (itk_…) from Settings > Advanced.',
        },
        ownerSession: {
          type: 'apiKey',
          in: 'cookie',
          name: session,
          description: 'The owner’s signed-in browser session; writes also need the X-CSRF-Token header.',
        },
      },
      schemas: {
        Error: schemaOf(ERROR_BODY, 'output'),
        DraftRequest: schemaOf(DRAFT_REQUEST, 'input'),
        Draft: schemaOf(DRAFT_VIEW, 'output'),
        InboxList: schemaOf(INBOX_LIST, 'output'),
        KeyList: schemaOf(KEY_LIST, 'output'),
        KeyCreateRequest: schemaOf(KEY_CREATE_REQUEST, 'input'),
        KeyChangeRequest: schemaOf(KEY_CHANGE_REQUEST, 'input'),
        Key: schemaOf(KEY_VIEW, 'output'),
        KeyCreated: schemaOf(KEY_CREATED, 'output'),
      },
    },
    paths: {
      '/api/inboxes': {
        get: {
          operationId: 'listInboxes',
          summary: 'The account’s inboxes, to pick an id for the draft endpoint.',
          security: [{ apiKey: [] }],
          responses: {
            '200': json(ref('InboxList'), 'The inboxes, oldest first.'),
            ...AGENT_ERRORS,
            '500': errors('The answer could not be written to the activity log, so it is withheld.', [
              'internal_error',
            ]),
          },
        },
      },
      '/api/inboxes/{id}/draft': {
        post: {
          operationId: 'createDraft',
          summary: 'Writes a draft into the mailbox. It never sends.',
          security: [{ apiKey: [] }],
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Inbox id.' },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: ref('DraftRequest') } } },
          responses: {
            '201': json(ref('Draft'), 'The draft, written to the mailbox’s Drafts.'),
            '400': errors('A field is missing, or the mailbox or the rules refused the draft.', [
              'invalid_request',
              'draft_failed',
            ]),
            '404': errors('The inbox id is wrong or the inbox was removed.', ['inbox_not_found']),
            '409': errors('The inbox is paused, or has no working credential.', [
              'inbox_paused',
              'not_connected',
            ]),
            '403': errors('The account owner has not allowed this key to write drafts (decision 0141).', [
              'not_allowed',
            ]),
            '413': errors('The body is larger than 1,000,000 bytes.', ['request_too_large']),
            ...AGENT_ERRORS,
            '429': {
              ...errors(
                'Too many requests for this key, or the inbox has taken its new drafts for the day (RATE_LIMIT_DRAFTS_PER_INBOX_PER_DAY).',
                ['rate_limited'],
              ),
              headers: AGENT_ERRORS['429'].headers,
            },
          },
        },
      },
      '/api/keys': {
        get: {
          operationId: 'listKeys',
          security: [{ ownerSession: [] }],
          responses: {
            '200': json(ref('KeyList'), 'The account’s keys, revoked ones included.'),
            ...OWNER_ERRORS,
          },
        },
        post: {
          operationId: 'createKey',
          security: [{ ownerSession: [] }],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref('KeyCreateRequest') } },
          },
          responses: {
            '201': json(ref('KeyCreated'), 'The new key; `key` is shown this once.'),
            '400': errors(
              'No name, a name that is not 1 to 80 characters of text, an unknown power, or an id that is not an inbox of the account.',
              ['invalid_request'],
            ),
            '409': errors('The plan’s number of active keys is reached.', ['key_limit_reached']),
            ...OWNER_ERRORS,
          },
        },
      },
      '/api/keys/{id}': {
        patch: {
          operationId: 'changeKey',
          summary:
            'Changes what the key’s agent may do beyond reading, and which inboxes it may reach, from its next request ' +
            'on (decisions 0141, 0142).',
          security: [{ ownerSession: [] }],
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref('KeyChangeRequest') } },
          },
          responses: {
            '200': json(ref('Key'), 'The key, with what it may do now.'),
            '400': errors(
              'Neither powers nor inboxes, a name that is not a power, or an id that is not an inbox of the account.',
              ['invalid_request'],
            ),
            '404': errors('No active key with this id on this account.', ['key_not_found']),
            ...OWNER_ERRORS,
          },
        },
        delete: {
          operationId: 'revokeKey',
          security: [{ ownerSession: [] }],
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '204': { description: 'Revoked: the key stops working on the next request.' },
            '404': errors('No active key with this id on this account.', ['key_not_found']),
            ...OWNER_ERRORS,
          },
        },
      },
    },
  };
}

/** `GET /api/openapi.json`: public, like any API description; built once. */
export function registerOpenApiRoute(app: Hono<HttpEnv>, baseUrl: string, secureCookies: boolean): void {
  const body = JSON.stringify(openApiDocument(baseUrl, secureCookies));
  app.get('/api/openapi.json', (c) => c.body(body, 200, { 'content-type': 'application/json' }));
}
