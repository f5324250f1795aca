import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';

/**
 * Validators for Response objects and stream events against both saved specs
 * (`shared/spec/openai-responses-openapi.json`, `shared/spec/openresponses-openapi.json`), with only
 * the documented spec quirks patched (spec/SOURCE.md "Loading notes").
 */
const SPEC_DIR = resolve(__dirname, '../../../shared/spec');

type Json = Record<string, unknown>;

function load(name: string): Json {
  return JSON.parse(readFileSync(resolve(SPEC_DIR, name), 'utf8')) as Json;
}

function schemas(spec: Json): Record<string, Json> {
  return (spec.components as { schemas: Record<string, Json> }).schemas;
}

function allowNull(schema: Json): Json {
  return { anyOf: [schema, { type: 'null' }] };
}

function patchOpenAi(spec: Json): Json {
  const all = schemas(spec);
  // Quirk 1: `user` is typed string but the API returns null.
  for (const part of (all.ResponseProperties?.allOf as Json[] | undefined) ?? [all.ResponseProperties!]) {
    const p = part.properties as Record<string, Json> | undefined;
    if (p?.user) p.user = allowNull(p.user);
  }
  for (const name of ['ModelResponseProperties', 'CreateModelResponseProperties']) {
    const schema = all[name];
    const p = schema?.properties as Record<string, Json> | undefined;
    if (p?.user) p.user = allowNull(p.user);
  }
  // Quirk 4: in-progress Responses carry usage: null.
  const responseParts = (all.Response!.allOf as Json[] | undefined) ?? [all.Response!];
  for (const part of responseParts) {
    const p = part.properties as Record<string, Json> | undefined;
    if (p?.usage) p.usage = allowNull(p.usage);
  }
  // Like `user`: the echo of a json_schema text format carries `description: null` when the
  // client gave none (Open Responses requires the key, nullable), but the spec types it string.
  const jsonSchemaFormat = all.TextResponseFormatJsonSchema?.properties as Record<string, Json> | undefined;
  if (jsonSchemaFormat?.description) jsonSchemaFormat.description = allowNull(jsonSchemaFormat.description);
  // Quirk 3: MCPApprovalResponseResource requires an undefined `request_id`.
  const mcp = all.MCPApprovalResponseResource;
  if (mcp && Array.isArray(mcp.required)) mcp.required = (mcp.required as string[]).filter((k) => k !== 'request_id');
  return spec;
}

function compile(spec: Json, id: string, ref: string): ValidateFunction {
  return ajvFor(spec, id).compile({ $ref: `${id}#/components/schemas/${ref}` });
}

const compilers = new Map<Json, Ajv2020>();
function ajvFor(spec: Json, id: string): Ajv2020 {
  let ajv = compilers.get(spec);
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, allErrors: true });
    for (const format of ['unixtime', 'float', 'double', 'int64', 'uri']) ajv.addFormat(format, true);
    ajv.addSchema({ $id: id, components: spec.components });
    compilers.set(spec, ajv);
  }
  return ajv;
}

let cache:
  | {
      openaiResponse: ValidateFunction;
      openaiEvent: ValidateFunction;
      openaiEvents: Map<string, ValidateFunction>;
      orResponse: ValidateFunction;
      orEvents: Map<string, ValidateFunction>;
    }
  | undefined;

function validators(): NonNullable<typeof cache> {
  if (cache) return cache;
  const openai = patchOpenAi(load('openai-responses-openapi.json'));
  const or = load('openresponses-openapi.json');
  // Open Responses types the echoed json_schema format's `schema` as `anyOf: [{type: null}]`, which
  // no real schema satisfies (OpenAI's spec has the object): a generator slip, allow an object.
  const orFormat = schemas(or).JsonSchemaResponseFormat?.properties as Record<string, Json> | undefined;
  if (orFormat?.schema) orFormat.schema = { anyOf: [{ type: 'object' }, { type: 'null' }] };
  const orEvents = new Map<string, ValidateFunction>();
  for (const [name, schema] of Object.entries(schemas(or))) {
    const type = ((schema.properties as Record<string, Json> | undefined)?.type?.enum as string[] | undefined)?.[0];
    if (name.endsWith('StreamingEvent') && type) orEvents.set(type, compile(or, 'or', name));
  }
  // The event union's errors are unreadable; each type's own schema (from the derived index) says
  // what is wrong. The union is still checked, so an event of an unknown type fails.
  const index = load('responses-index.json') as { stream_events: Record<string, { schema: string }> };
  const openaiEvents = new Map<string, ValidateFunction>();
  for (const [type, { schema }] of Object.entries(index.stream_events)) openaiEvents.set(type, compile(openai, 'oas', schema));
  cache = {
    openaiResponse: compile(openai, 'oas', 'Response'),
    openaiEvent: compile(openai, 'oas', 'ResponseStreamEvent'),
    openaiEvents,
    orResponse: compile(or, 'or', 'ResponseResource'),
    orEvents,
  };
  return cache;
}

function describe(validate: ValidateFunction): string[] {
  return (validate.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

/** Problems of a Response object under both specs; [] when valid. */
export function responseProblems(response: unknown): string[] {
  const v = validators();
  const problems: string[] = [];
  if (!v.openaiResponse(response)) problems.push(...describe(v.openaiResponse).map((p) => `openai: ${p}`));
  if (!v.orResponse(response)) problems.push(...describe(v.orResponse).map((p) => `openresponses: ${p}`));
  return problems;
}

/** Open Responses names two reasoning events differently (spec/SOURCE.md): map them first. */
const OR_EVENT_NAMES: Readonly<Record<string, string>> = {
  'response.reasoning_text.delta': 'response.reasoning.delta',
  'response.reasoning_text.done': 'response.reasoning.done',
};

/** Problems of one stream event under both specs; [] when valid. */
export function eventProblems(event: { type: string }): string[] {
  const v = validators();
  const problems: string[] = [];
  const type = event.type;
  const own = v.openaiEvents.get(type);
  if (own && !own(event)) problems.push(...describe(own).map((p) => `openai: ${p}`));
  else if (!v.openaiEvent(event)) problems.push(`openai: not a valid ResponseStreamEvent (type ${type})`);
  const orType = OR_EVENT_NAMES[event.type] ?? event.type;
  const orValidate = v.orEvents.get(orType);
  if (!orValidate) problems.push(`openresponses: no schema for event type ${orType}`);
  else if (!orValidate({ ...event, type: orType })) problems.push(...describe(orValidate).map((p) => `openresponses: ${p}`));
  return problems;
}
