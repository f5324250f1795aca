/**
 * The simulated server's side of the vLLM / OpenAI wire format: reading `/v1/completions` and
 * `/v1/chat/completions` bodies into engine requests, and writing chunks shaped like vLLM's.
 * Chunks are built as strings from templates: the server must sustain millions of tokens per
 * second, so nothing here stringifies whole objects per chunk.
 */
import type {
  ChatContentPart,
  ChatDelta,
  ChatMessage,
  ChatTokenLogprob,
  ChatTool,
  ChatToolChoice,
  EngineUsage,
  JsonSchema,
  StructuredOutput,
} from '../engine';
import type { SimCodec } from './sim-codec';

export class WireError extends Error {
  constructor(
    message: string,
    readonly status = 400,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

type Body = Record<string, unknown>;

export interface CompletionWireRequest {
  model?: string;
  promptTokens: number[];
  maxTokens: number;
  stopTokenIds: number[];
  stream: boolean;
  includeUsage: boolean;
  returnTokenIds: boolean;
  skipSpecialTokens: boolean;
  structuredOutput?: StructuredOutput;
  cacheSalt?: string;
}

export interface ChatWireRequest {
  model?: string;
  messages: ChatMessage[];
  tools?: ChatTool[];
  toolChoice?: ChatToolChoice;
  maxTokens?: number;
  topLogprobs?: number;
  structuredOutput?: StructuredOutput;
  stream: boolean;
  includeUsage: boolean;
}

export function parseCompletionRequest(body: Body, codec: SimCodec): CompletionWireRequest {
  const prompt = body.prompt;
  let promptTokens: number[];
  if (typeof prompt === 'string' && prompt !== '') promptTokens = codec.encodeHarmony(prompt);
  else if (Array.isArray(prompt) && prompt.length > 0 && prompt.every(isTokenId)) promptTokens = prompt as number[];
  else throw new WireError('prompt must be a non-empty string or a non-empty list of token ids (one prompt only)', 400, 'prompt');
  if (body.n !== undefined && body.n !== null && body.n !== 1) throw new WireError('only n=1 is supported by the simulated engine', 400, 'n');
  const stop = body.stop_token_ids ?? [];
  if (!Array.isArray(stop) || !stop.every(isTokenId)) throw new WireError('stop_token_ids must be a list of token ids', 400, 'stop_token_ids');
  const request: CompletionWireRequest = {
    promptTokens,
    // vLLM's completions default.
    maxTokens: optionalCount(body.max_tokens, 'max_tokens') ?? 16,
    stopTokenIds: stop as number[],
    stream: body.stream === true,
    includeUsage: includeUsage(body),
    returnTokenIds: body.return_token_ids === true,
    skipSpecialTokens: body.skip_special_tokens !== false,
  };
  if (typeof body.model === 'string') request.model = body.model;
  if (body.cache_salt !== undefined && body.cache_salt !== null) {
    if (typeof body.cache_salt !== 'string' || body.cache_salt === '') {
      throw new WireError("Parameter 'cache_salt' must be a non-empty string if provided.", 400, 'cache_salt');
    }
    request.cacheSalt = body.cache_salt;
  }
  const structured = structuredOutputOf(body);
  if (structured) request.structuredOutput = structured;
  return request;
}

export function parseChatRequest(body: Body): ChatWireRequest {
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    throw new WireError('messages must be a non-empty list', 400, 'messages');
  }
  const request: ChatWireRequest = {
    messages: body.messages.map(chatMessageOf),
    stream: body.stream === true,
    includeUsage: includeUsage(body),
  };
  if (typeof body.model === 'string') request.model = body.model;
  if (Array.isArray(body.tools) && body.tools.length > 0) request.tools = body.tools.map(chatToolOf);
  if (body.tool_choice !== undefined && body.tool_choice !== null) request.toolChoice = toolChoiceOf(body.tool_choice);
  const maxTokens = optionalCount(body.max_completion_tokens, 'max_completion_tokens') ?? optionalCount(body.max_tokens, 'max_tokens');
  if (maxTokens !== undefined) request.maxTokens = maxTokens;
  if (body.logprobs === true) request.topLogprobs = optionalCount(body.top_logprobs, 'top_logprobs') ?? 0;
  const structured = structuredOutputOf(body);
  if (structured) request.structuredOutput = structured;
  return request;
}

function includeUsage(body: Body): boolean {
  const options = body.stream_options as Body | null | undefined;
  return typeof options === 'object' && options !== null && options.include_usage === true;
}

function isTokenId(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function optionalCount(value: unknown, param: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new WireError(`${param} must be an integer ≥ 0`, 400, param);
  return value;
}

/** vLLM's `structured_outputs` (current), `guided_json` (before v0.12) or OpenAI's `response_format`. */
function structuredOutputOf(body: Body): StructuredOutput | undefined {
  const structured = body.structured_outputs as Body | null | undefined;
  if (typeof structured === 'object' && structured !== null) {
    if (structured.json !== undefined && structured.json !== null) return { type: 'json_schema', schema: schemaOf(structured.json) };
    if (structured.json_object === true) return { type: 'json_object' };
  }
  if (body.guided_json !== undefined && body.guided_json !== null) return { type: 'json_schema', schema: schemaOf(body.guided_json) };
  const format = body.response_format as Body | null | undefined;
  if (typeof format === 'object' && format !== null) {
    if (format.type === 'json_object') return { type: 'json_object' };
    if (format.type === 'json_schema') {
      const spec = format.json_schema as Body | null | undefined;
      return { type: 'json_schema', schema: schemaOf(spec?.schema ?? {}) };
    }
  }
  return undefined;
}

function schemaOf(value: unknown): JsonSchema {
  const parsed: unknown = typeof value === 'string' ? safeJson(value) : value;
  if (typeof parsed !== 'object' || parsed === null) throw new WireError('the JSON schema must be an object', 400, 'structured_outputs');
  return parsed as JsonSchema;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new WireError('the JSON schema is not valid JSON', 400, 'structured_outputs');
  }
}

function chatMessageOf(value: unknown): ChatMessage {
  const m = (typeof value === 'object' && value !== null ? value : {}) as Body;
  const text = (content: unknown): string => {
    if (typeof content === 'string') return content;
    if (Array.isArray(content)) return content.map((p) => (typeof (p as Body).text === 'string' ? ((p as Body).text as string) : '')).join('');
    return '';
  };
  switch (m.role) {
    case 'system':
    case 'developer':
      return { role: m.role, content: text(m.content) };
    case 'user': {
      if (!Array.isArray(m.content)) return { role: 'user', content: text(m.content) };
      const parts: ChatContentPart[] = (m.content as Body[]).map((p) =>
        p.type === 'image_url'
          ? { type: 'image_url', imageUrl: { url: String((p.image_url as Body | undefined)?.url ?? '') } }
          : { type: 'text', text: typeof p.text === 'string' ? p.text : '' },
      );
      return { role: 'user', content: parts };
    }
    case 'assistant': {
      const calls = Array.isArray(m.tool_calls) ? (m.tool_calls as Body[]) : [];
      const message: ChatMessage = {
        role: 'assistant',
        content: m.content === null || m.content === undefined ? null : text(m.content),
        toolCalls: calls.map((c) => {
          const fn = (c.function ?? {}) as Body;
          return { id: String(c.id ?? ''), name: String(fn.name ?? ''), arguments: String(fn.arguments ?? '') };
        }),
      };
      return message;
    }
    case 'tool':
      return { role: 'tool', toolCallId: String(m.tool_call_id ?? ''), content: text(m.content) };
    default:
      throw new WireError(`unknown message role ${JSON.stringify(m.role)}`, 400, 'messages');
  }
}

function chatToolOf(value: unknown): ChatTool {
  const fn = ((value as Body | null)?.function ?? {}) as Body;
  if (typeof fn.name !== 'string' || fn.name === '') throw new WireError('every tool needs function.name', 400, 'tools');
  const tool: ChatTool = { name: fn.name };
  if (typeof fn.description === 'string') tool.description = fn.description;
  if (typeof fn.parameters === 'object' && fn.parameters !== null) tool.parameters = fn.parameters as JsonSchema;
  return tool;
}

function toolChoiceOf(value: unknown): ChatToolChoice {
  if (value === 'auto' || value === 'none' || value === 'required') return value;
  const name = ((value as Body | null)?.function as Body | undefined)?.name;
  if (typeof name === 'string') return { name };
  throw new WireError('tool_choice must be auto, none, required or a named function', 400, 'tool_choice');
}

// ---- writing -----------------------------------------------------------------------------------

/** Detokenizes a stream of ids into text deltas, holding back split UTF-8 like a real detokenizer. */
export class ChunkText {
  private readonly decoder = new TextDecoder();
  private scratch = new Uint8Array(4096);

  constructor(
    private readonly codec: SimCodec,
    private readonly skipSpecial: boolean,
  ) {}

  /** Text of `ids`; `omitLast` leaves out the final id's text (a stop token is not echoed). */
  next(ids: readonly number[], omitLast: boolean): string {
    let length = 0;
    const count = omitLast ? ids.length - 1 : ids.length;
    for (let i = 0; i < count; i++) {
      const id = ids[i]!;
      if (this.skipSpecial && this.codec.isSpecial(id)) continue;
      const bytes = this.codec.tokenBytes(id);
      if (length + bytes.length > this.scratch.length) {
        const grown = new Uint8Array(Math.max(this.scratch.length * 2, length + bytes.length));
        grown.set(this.scratch.subarray(0, length));
        this.scratch = grown;
      }
      this.scratch.set(bytes, length);
      length += bytes.length;
    }
    return this.decoder.decode(this.scratch.subarray(0, length), { stream: true });
  }
}

/** Template for one stream's `text_completion` chunks (fields in vLLM's order). */
export class CompletionChunkWriter {
  private readonly head: string;

  constructor(id: string, created: number, model: string) {
    this.head = `data: {"id":${JSON.stringify(id)},"object":"text_completion","created":${created},"model":${JSON.stringify(model)},"choices":[{"index":0,"text":`;
  }

  chunk(text: string, tokenIds: readonly number[] | null, promptTokenIds: readonly number[] | null, finishReason: string | null, stopReason: number | null): string {
    return `${this.head}${JSON.stringify(text)},"logprobs":null,"finish_reason":${finishReason === null ? 'null' : `"${finishReason}"`},"stop_reason":${stopReason === null ? 'null' : stopReason},"token_ids":${tokenIds === null ? 'null' : `[${tokenIds.join(',')}]`},"prompt_token_ids":${promptTokenIds === null ? 'null' : `[${promptTokenIds.join(',')}]`}}],"usage":null}\n\n`;
  }

  usage(id: string, created: number, model: string, usage: EngineUsage): string {
    return `data: ${JSON.stringify({ id, object: 'text_completion', created, model, choices: [], usage: usageWire(usage) })}\n\n`;
  }
}

export function usageWire(usage: EngineUsage): Body {
  const wire: Body = {
    prompt_tokens: usage.promptTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    completion_tokens: usage.completionTokens,
    prompt_tokens_details: null,
  };
  if (usage.reasoningTokens !== undefined) wire.completion_tokens_details = { reasoning_tokens: usage.reasoningTokens };
  return wire;
}

export function chatDeltaWire(delta: ChatDelta): Body {
  const wire: Body = {};
  if (delta.reasoning !== undefined) wire.reasoning_content = delta.reasoning;
  if (delta.content !== undefined) wire.content = delta.content;
  if (delta.toolCalls) {
    wire.tool_calls = delta.toolCalls.map((call) => {
      const fn: Body = { arguments: call.argumentsDelta };
      if (call.name !== undefined) fn.name = call.name;
      return call.id !== undefined ? { index: call.index, id: call.id, type: 'function', function: fn } : { index: call.index, function: fn };
    });
  }
  return wire;
}

export function logprobsWire(logprobs: readonly ChatTokenLogprob[] | undefined): Body | null {
  if (!logprobs) return null;
  return {
    content: logprobs.map((entry) => ({
      token: entry.token,
      logprob: entry.logprob,
      bytes: entry.bytes,
      top_logprobs: entry.topLogprobs.map((top) => ({ token: top.token, logprob: top.logprob, bytes: top.bytes })),
    })),
  };
}
