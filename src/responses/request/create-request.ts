import type { FunctionTool, IncludeValue, ResponseRequest } from '../../generation/response-request';
import type {
  FunctionCallInputItem,
  FunctionCallOutputItem,
  InputContent,
  InputItem,
  InputMessageItem,
  InputTextContent,
  ItemStatus,
  MessageRole,
  ReasoningInputItem,
} from '../../generation/types/items';
import type { ReasoningEffort, TextFormat, ToolChoiceEcho } from '../../generation/types/response';
import { JsonCheck, optional, type JsonObject } from './json-check';

const TOP_LEVEL = [
  'model', 'input', 'instructions', 'tools', 'tool_choice', 'parallel_tool_calls', 'max_output_tokens', 'max_tool_calls',
  'temperature', 'top_p', 'top_logprobs', 'text', 'reasoning', 'store', 'stream', 'stream_options', 'background', 'metadata',
  'previous_response_id', 'truncation', 'user', 'safety_identifier', 'prompt_cache_key', 'prompt_cache_retention',
  'prompt_cache_options', 'service_tier', 'include', 'conversation', 'prompt', 'moderation', 'context_management',
] as const;

/** Accepted by the spec but not honoured by this server yet: a 400 naming them, never ignored. */
const NOT_SUPPORTED: Readonly<Record<string, string>> = {
  conversation: 'the Conversations API is not supported yet; chain responses with previous_response_id instead.',
  prompt: 'stored prompt templates are not supported by this server.',
  moderation: 'moderation is not supported by this server.',
  context_management: 'server-side compaction is not supported yet.',
  prompt_cache_retention: 'prompt cache retention is managed by the inference engine and cannot be set per request.',
  prompt_cache_options: 'prompt cache options are managed by the inference engine and cannot be set per request.',
};

const INCLUDE_SUPPORTED: readonly IncludeValue[] = ['reasoning.encrypted_content', 'message.output_text.logprobs'];
const INCLUDE_KNOWN = [
  ...INCLUDE_SUPPORTED,
  'file_search_call.results',
  'web_search_call.results',
  'web_search_call.action.sources',
  'message.input_image.image_url',
  'computer_call_output.output.image_url',
  'code_interpreter_call.outputs',
];
const BUILTIN_TOOLS = [
  'web_search', 'web_search_2025_08_26', 'web_search_preview', 'web_search_preview_2025_03_11', 'code_interpreter', 'mcp',
  'file_search', 'computer', 'computer_use_preview', 'image_generation', 'local_shell', 'shell', 'custom', 'namespace',
  'tool_search', 'programmatic_tool_calling', 'apply_patch',
];
const ITEM_STATUS: readonly ItemStatus[] = ['in_progress', 'completed', 'incomplete'];
const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Validates a `POST /v1/responses` body and normalises it into a ResponseRequest (every default applied). */
export function parseCreateRequest(body: unknown): ResponseRequest {
  const root = new JsonCheck('');
  const b = root.object(body, TOP_LEVEL);
  for (const [key, message] of Object.entries(NOT_SUPPORTED)) {
    if (b[key] !== undefined && b[key] !== null) throw root.at(key).unsupported(message);
  }
  const model = root.at('model').string(root.at('model').required(b.model), { nonEmpty: true });
  const stream = optional(b.stream, (v) => root.at('stream').boolean(v), false);
  const store = optional(b.store, (v) => root.at('store').boolean(v), true);
  const background = optional(b.background, (v) => root.at('background').boolean(v), false);
  if (background && !store) throw root.at('background').unsupported('background responses must be stored: set store to true or background to false.');
  const tools = optional(b.tools, (v) => parseTools(root.at('tools'), v), []);
  const streamOptions = optional(b.stream_options, (v) => root.at('stream_options').object(v, ['include_obfuscation']));
  if (streamOptions && !stream) throw root.at('stream_options').unsupported('stream_options is only allowed when stream is true.');
  if (streamOptions?.include_obfuscation !== undefined && root.at('stream_options').at('include_obfuscation').boolean(streamOptions.include_obfuscation)) {
    throw root.at('stream_options').at('include_obfuscation').unsupported('stream obfuscation is not supported; set it to false or leave it out.');
  }
  const text = optional(b.text, (v) => root.at('text').object(v, ['format', 'verbosity']));
  const reasoning = optional(b.reasoning, (v) => root.at('reasoning').object(v, ['effort', 'summary', 'generate_summary']));
  const truncation = optional(b.truncation, (v) => root.at('truncation').oneOf(v, ['auto', 'disabled'] as const), 'disabled');
  return {
    model,
    input: optional(b.input, (v) => parseInput(root.at('input'), v), []),
    instructions: optional(b.instructions, (v) => root.at('instructions').string(v)),
    tools,
    toolChoice: optional(b.tool_choice, (v) => parseToolChoice(root.at('tool_choice'), v, tools), 'auto'),
    parallelToolCalls: optional(b.parallel_tool_calls, (v) => root.at('parallel_tool_calls').boolean(v), true),
    maxOutputTokens: optional(b.max_output_tokens, (v) => root.at('max_output_tokens').integer(v, 16)),
    maxToolCalls: optional(b.max_tool_calls, (v) => root.at('max_tool_calls').integer(v, 0)),
    temperature: optional(b.temperature, (v) => root.at('temperature').number(v, 0, 2)),
    topP: optional(b.top_p, (v) => root.at('top_p').number(v, 0, 1)),
    topLogprobs: optional(b.top_logprobs, (v) => root.at('top_logprobs').integer(v, 0, 20), 0),
    textFormat: optional(text?.format, (v) => parseTextFormat(root.at('text').at('format'), v), { type: 'text' } as TextFormat),
    verbosity: optional(text?.verbosity, (v) => root.at('text').at('verbosity').oneOf(v, ['low', 'medium', 'high'] as const), 'medium'),
    reasoningEffort: optional(reasoning?.effort, (v) => parseEffort(root.at('reasoning').at('effort'), v)),
    reasoningSummary:
      optional(reasoning?.summary, (v) => root.at('reasoning').at('summary').oneOf(v, ['auto', 'concise', 'detailed'] as const)) ??
      optional(reasoning?.generate_summary, (v) => root.at('reasoning').at('generate_summary').oneOf(v, ['auto', 'concise', 'detailed'] as const)),
    store,
    stream,
    background,
    metadata: optional(b.metadata, (v) => parseMetadata(root.at('metadata'), v), {}),
    previousResponseId: optional(b.previous_response_id, (v) => root.at('previous_response_id').string(v, { nonEmpty: true })),
    truncation,
    user: optional(b.user, (v) => root.at('user').string(v, { maxLength: 256 })),
    safetyIdentifier: optional(b.safety_identifier, (v) => root.at('safety_identifier').string(v, { maxLength: 64 })),
    promptCacheKey: optional(b.prompt_cache_key, (v) => root.at('prompt_cache_key').string(v, { maxLength: 256 })),
    serviceTier: optional(b.service_tier, (v) => root.at('service_tier').oneOf(v, ['auto', 'default', 'flex', 'scale', 'priority'] as const), 'auto'),
    include: optional(b.include, (v) => parseInclude(root.at('include'), v), []),
    includeObfuscation: false,
  };
}

export function parseInclude(check: JsonCheck, value: unknown): IncludeValue[] {
  return check.array(value).map((entry, index) => {
    const name = check.at(index).oneOf(entry, INCLUDE_KNOWN);
    if (!INCLUDE_SUPPORTED.includes(name as IncludeValue)) throw check.at(index).unsupported(`'${name}' needs a built-in tool or input type this server does not support yet.`);
    return name as IncludeValue;
  });
}

function parseEffort(check: JsonCheck, value: unknown): ReasoningEffort {
  const effort = check.oneOf(value, ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const);
  if (effort === 'low' || effort === 'medium' || effort === 'high') return effort;
  throw check.unsupported(`'${effort}' is not supported: gpt-oss reasons at 'low', 'medium' or 'high'.`);
}

function parseMetadata(check: JsonCheck, value: unknown): Record<string, string> {
  const map = check.object(value, Object.keys(value as JsonObject));
  const keys = Object.keys(map);
  if (keys.length > 16) throw check.unsupported(`at most 16 pairs are allowed, got ${keys.length}.`);
  const out: Record<string, string> = {};
  for (const key of keys) {
    if (key.length > 64) throw check.at(key).unsupported(`metadata keys are at most 64 characters, got ${key.length}.`);
    out[key] = check.at(key).string(map[key], { maxLength: 512 });
  }
  return out;
}

function parseTextFormat(check: JsonCheck, value: unknown): TextFormat {
  const format = check.object(value, ['type', 'name', 'schema', 'description', 'strict']);
  const type = check.at('type').oneOf(check.at('type').required(format.type), ['text', 'json_object', 'json_schema'] as const);
  if (type !== 'json_schema') {
    check.object(value, ['type']);
    return { type };
  }
  const schema = check.at('schema').object(check.at('schema').required(format.schema), Object.keys((format.schema as JsonObject | null) ?? {}));
  return {
    type,
    name: check.at('name').string(check.at('name').required(format.name), { pattern: NAME, patternText: '^[a-zA-Z0-9_-]{1,64}$' }),
    schema,
    description: optional(format.description, (v) => check.at('description').string(v)),
    strict: optional(format.strict, (v) => check.at('strict').boolean(v), false),
  };
}

function parseTools(check: JsonCheck, value: unknown): FunctionTool[] {
  const seen = new Set<string>();
  return check.array(value, 128).map((entry, index) => {
    const at = check.at(index);
    const raw = at.object(entry, Object.keys((entry as JsonObject | null) ?? {}));
    const type = at.at('type').string(at.at('type').required(raw.type));
    if (BUILTIN_TOOLS.includes(type)) throw at.at('type').unsupported(`'${type}' tools arrive with the built-in tools; supported today: 'function'.`);
    if (type !== 'function') throw at.at('type').unsupported(`unknown tool type '${type}'; supported today: 'function'.`);
    const tool = at.object(entry, ['type', 'name', 'description', 'parameters', 'strict']);
    const name = at.at('name').string(at.at('name').required(tool.name), { pattern: NAME, patternText: '^[a-zA-Z0-9_-]{1,64}$' });
    if (seen.has(name)) throw at.at('name').unsupported(`the function name '${name}' is used twice.`);
    seen.add(name);
    return {
      type: 'function',
      name,
      description: optional(tool.description, (v) => at.at('description').string(v)),
      parameters: optional(tool.parameters, (v) => at.at('parameters').object(v, Object.keys((v as JsonObject | null) ?? {}))),
      strict: optional(tool.strict, (v) => at.at('strict').boolean(v), false),
    };
  });
}

function parseToolChoice(check: JsonCheck, value: unknown, tools: readonly FunctionTool[]): ToolChoiceEcho {
  if (typeof value === 'string') return check.oneOf(value, ['auto', 'none', 'required'] as const);
  const choice = check.object(value, ['type', 'name']);
  const type = check.at('type').string(check.at('type').required(choice.type));
  if (type !== 'function') throw check.at('type').unsupported(`tool_choice of type '${type}' is not supported; use 'auto', 'none', 'required' or {type: 'function', name}.`);
  const name = check.at('name').string(check.at('name').required(choice.name));
  if (!tools.some((tool) => tool.name === name)) throw check.at('name').unsupported(`no function named '${name}' is in tools.`);
  return { type: 'function', name };
}

function parseInput(check: JsonCheck, value: unknown): InputItem[] {
  if (typeof value === 'string') return [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: value }] }];
  return check.array(value, 2_048).map((entry, index) => parseItem(check.at(index), entry));
}

function parseItem(check: JsonCheck, value: unknown): InputItem {
  const raw = check.object(value, Object.keys((value as JsonObject | null) ?? {}));
  const type = raw.type === undefined ? 'message' : check.at('type').string(raw.type);
  switch (type) {
    case 'message':
      return parseMessage(check, raw);
    case 'function_call': {
      const item = check.object(raw, ['type', 'id', 'call_id', 'name', 'arguments', 'status', 'namespace']);
      if (item.namespace !== undefined && item.namespace !== null) {
        throw check.at('namespace').unsupported('tool namespaces are not supported; call the function by its plain name.');
      }
      const call: FunctionCallInputItem = {
        type: 'function_call',
        call_id: check.at('call_id').string(check.at('call_id').required(item.call_id), { nonEmpty: true, maxLength: 64 }),
        name: check.at('name').string(check.at('name').required(item.name), { nonEmpty: true }),
        arguments: check.at('arguments').string(check.at('arguments').required(item.arguments)),
      };
      return withIdAndStatus(check, item, call);
    }
    case 'function_call_output': {
      const item = check.object(raw, ['type', 'id', 'call_id', 'output', 'status']);
      const output = check.at('output').required(item.output);
      const out: FunctionCallOutputItem = {
        type: 'function_call_output',
        call_id: check.at('call_id').string(check.at('call_id').required(item.call_id), { nonEmpty: true, maxLength: 64 }),
        output: typeof output === 'string' ? output : check.at('output').array(output).map((part, i) => parseInputText(check.at('output').at(i), part)),
      };
      return withIdAndStatus(check, item, out);
    }
    case 'reasoning': {
      const item = check.object(raw, ['type', 'id', 'summary', 'content', 'encrypted_content', 'status']);
      const reasoning: ReasoningInputItem = {
        type: 'reasoning',
        summary: optional(item.summary, (v) =>
          check.at('summary').array(v).map((part, i) => {
            const p = check.at('summary').at(i).object(part, ['type', 'text']);
            check.at('summary').at(i).at('type').oneOf(p.type, ['summary_text'] as const);
            return { type: 'summary_text' as const, text: check.at('summary').at(i).at('text').string(p.text) };
          }),
        [],
        ),
      };
      const content = optional(item.content, (v) =>
        check.at('content').array(v).map((part, i) => {
          const p = check.at('content').at(i).object(part, ['type', 'text']);
          check.at('content').at(i).at('type').oneOf(p.type, ['reasoning_text'] as const);
          return { type: 'reasoning_text' as const, text: check.at('content').at(i).at('text').string(p.text) };
        }),
      );
      if (content) reasoning.content = content;
      const encrypted = optional(item.encrypted_content, (v) => check.at('encrypted_content').string(v));
      if (encrypted !== null) reasoning.encrypted_content = encrypted;
      return withIdAndStatus(check, item, reasoning);
    }
    case 'item_reference': {
      const item = check.object(raw, ['type', 'id']);
      return { type: 'item_reference', id: check.at('id').string(check.at('id').required(item.id), { nonEmpty: true }) };
    }
    default:
      throw check.at('type').unsupported(
        `input items of type '${type}' are not supported; supported: message, function_call, function_call_output, reasoning, item_reference.`,
      );
  }
}

function parseMessage(check: JsonCheck, raw: JsonObject): InputMessageItem {
  const item = check.object(raw, ['type', 'id', 'role', 'content', 'status', 'phase']);
  const role = check.at('role').oneOf(check.at('role').required(item.role), ['user', 'assistant', 'system', 'developer'] as const) as MessageRole;
  const content = check.at('content').required(item.content);
  const message: InputMessageItem = {
    type: 'message',
    role,
    content:
      typeof content === 'string'
        ? [role === 'assistant' ? { type: 'output_text', text: content, annotations: [], logprobs: [] } : { type: 'input_text', text: content }]
        : check.at('content').array(content).map((part, i) => parseContentPart(check.at('content').at(i), part, role)),
  };
  if (item.phase !== undefined && item.phase !== null) check.at('phase').oneOf(item.phase, ['commentary', 'final_answer'] as const);
  return withIdAndStatus(check, item, message);
}

function parseContentPart(check: JsonCheck, value: unknown, role: MessageRole): InputContent {
  const raw = check.object(value, Object.keys((value as JsonObject | null) ?? {}));
  const type = check.at('type').string(check.at('type').required(raw.type));
  switch (type) {
    case 'input_text':
      return parseInputText(check, value);
    case 'output_text': {
      if (role !== 'assistant') throw check.at('type').unsupported(`'output_text' parts belong to assistant messages; use 'input_text' for role '${role}'.`);
      const part = check.object(value, ['type', 'text', 'annotations', 'logprobs']);
      return { type: 'output_text', text: check.at('text').string(check.at('text').required(part.text)), annotations: [], logprobs: [] };
    }
    case 'refusal': {
      const part = check.object(value, ['type', 'refusal']);
      return { type: 'refusal', refusal: check.at('refusal').string(check.at('refusal').required(part.refusal)) };
    }
    case 'input_image':
    case 'input_file':
    case 'input_audio':
      throw check.at('type').unsupported(`'${type}' parts are not supported: the served model takes text only.`);
    default:
      throw check.at('type').unsupported(`unknown content part type '${type}'; supported: input_text, output_text, refusal.`);
  }
}

function parseInputText(check: JsonCheck, value: unknown): InputTextContent {
  const part = check.object(value, ['type', 'text']);
  check.at('type').oneOf(check.at('type').required(part.type), ['input_text'] as const);
  return { type: 'input_text', text: check.at('text').string(check.at('text').required(part.text)) };
}

function withIdAndStatus<T extends { id?: string; status?: ItemStatus }>(check: JsonCheck, raw: JsonObject, item: T): T {
  if (raw.id !== undefined && raw.id !== null) item.id = check.at('id').string(raw.id, { nonEmpty: true });
  if (raw.status !== undefined && raw.status !== null) item.status = check.at('status').oneOf(raw.status, ITEM_STATUS);
  return item;
}

const TOKEN_COUNT_FIELDS = [
  'model', 'input', 'previous_response_id', 'tools', 'text', 'reasoning', 'truncation', 'instructions', 'conversation',
  'tool_choice', 'parallel_tool_calls', 'personality',
];

/** A `POST /v1/responses/input_tokens` body (spec TokenCountsBody), as a create request to render. */
export function parseTokenCountRequest(body: unknown, servedModel: string): ResponseRequest {
  const check = new JsonCheck('');
  const b = check.object(body, TOKEN_COUNT_FIELDS);
  if (b.personality !== undefined && b.personality !== null) throw check.at('personality').unsupported('personalities are not supported by this server.');
  const { personality: _personality, ...rest } = b;
  return parseCreateRequest({ ...rest, model: rest.model ?? servedModel, store: false });
}
