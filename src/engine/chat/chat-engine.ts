import { EngineError } from '../engine-error';
import type {
  ChatDelta,
  ChatEngine,
  ChatFinishReason,
  ChatMessage,
  ChatRequest,
  ChatTokenLogprob,
  ChatToolCallDelta,
  ChatTopLogprob,
  EngineUsage,
} from '../engine';
import { HttpEngine, type HttpEngineOptions } from '../http/http-engine';
import { firstChoice, samplingFields, usageFrom, type WireRecord } from '../http/wire';

export type ChatCompletionsEngineOptions = HttpEngineOptions;

/**
 * Engine for models without harmony, over any OpenAI-compatible `/v1/chat/completions` server.
 * Streams content, reasoning (`reasoning_content`, or `reasoning` in newer vLLM) and tool-call
 * deltas; the caller maps them to Responses events.
 */
export class ChatCompletionsEngine extends HttpEngine implements ChatEngine {
  readonly kind = 'chat' as const;
  constructor(options: ChatCompletionsEngineOptions) {
    super(options, `the chat engine at ${options.url}`);
  }

  async *chat(request: ChatRequest): AsyncGenerator<ChatDelta, void, undefined> {
    if (request.signal.aborted) {
      throw new EngineError('aborted', `the request to ${this.label} was aborted`, { cause: request.signal.reason });
    }
    const payload = chatPayload(request, await this.info.modelId());
    let final: ChatDelta | undefined;
    let usage: EngineUsage | undefined;
    try {
      for await (const batch of this.http.streamEvents({
        path: '/v1/chat/completions',
        payload,
        signal: request.signal,
        requestId: request.requestId,
      })) {
        for (const event of batch) {
          const reported = (event as WireRecord).usage;
          if (reported !== undefined && reported !== null) usage = usageFrom(reported) ?? usage;
          const choice = firstChoice(event, this.label);
          if (choice === undefined) continue;
          const delta = this.deltaOf(choice);
          const finish = choice.finish_reason;
          if (finish === undefined || finish === null) {
            if (final !== undefined) throw new EngineError('protocol', `${this.label} sent output after finishing`);
            if (delta) yield delta;
            continue;
          }
          // Held back until the usage chunk that follows, so both travel on the last delta.
          final = { ...delta, finishReason: finishReasonOf(finish, this.label) };
        }
      }
    } catch (error) {
      if (!(final && error instanceof EngineError && error.kind === 'timeout')) throw error;
    }
    if (final === undefined) {
      throw new EngineError('server_error', `${this.label} ended the stream before generation finished`);
    }
    if (usage) final.usage = usage;
    yield final;
  }

  private deltaOf(choice: WireRecord): ChatDelta | undefined {
    const delta: ChatDelta = {};
    let hasOutput = false;
    const wire = choice.delta;
    if (wire !== undefined && wire !== null) {
      if (typeof wire !== 'object') throw new EngineError('protocol', `${this.label} sent a malformed "delta"`);
      const record = wire as WireRecord;
      if (typeof record.content === 'string' && record.content !== '') {
        delta.content = record.content;
        hasOutput = true;
      }
      const reasoning = typeof record.reasoning_content === 'string' ? record.reasoning_content : record.reasoning;
      if (typeof reasoning === 'string' && reasoning !== '') {
        delta.reasoning = reasoning;
        hasOutput = true;
      }
      if (record.tool_calls !== undefined && record.tool_calls !== null) {
        const toolCalls = this.toolCallsOf(record.tool_calls);
        if (toolCalls.length > 0) {
          delta.toolCalls = toolCalls;
          hasOutput = true;
        }
      }
    }
    const logprobs = (choice.logprobs as WireRecord | null | undefined)?.content;
    if (logprobs !== undefined && logprobs !== null) {
      const parsed = this.logprobsOf(logprobs);
      if (parsed.length > 0) {
        delta.logprobs = parsed;
        hasOutput = true;
      }
    }
    return hasOutput ? delta : undefined;
  }

  private toolCallsOf(value: unknown): ChatToolCallDelta[] {
    if (!Array.isArray(value)) throw new EngineError('protocol', `${this.label} sent "tool_calls" that is not an array`);
    return value.map((item: unknown, position) => {
      if (typeof item !== 'object' || item === null) {
        throw new EngineError('protocol', `${this.label} sent a malformed tool call delta`);
      }
      const call = item as WireRecord;
      const fn = (call.function ?? {}) as WireRecord;
      const index = typeof call.index === 'number' && Number.isInteger(call.index) ? call.index : position;
      const delta: ChatToolCallDelta = {
        index,
        argumentsDelta: typeof fn.arguments === 'string' ? fn.arguments : '',
      };
      if (typeof call.id === 'string' && call.id !== '') delta.id = call.id;
      if (typeof fn.name === 'string' && fn.name !== '') delta.name = fn.name;
      return delta;
    });
  }

  private logprobsOf(value: unknown): ChatTokenLogprob[] {
    if (!Array.isArray(value)) throw new EngineError('protocol', `${this.label} sent "logprobs.content" that is not an array`);
    return value.map((item: unknown) => {
      const entry = this.topLogprobOf(item);
      const tops = (item as WireRecord).top_logprobs;
      return { ...entry, topLogprobs: Array.isArray(tops) ? tops.map((top: unknown) => this.topLogprobOf(top)) : [] };
    });
  }

  private topLogprobOf(value: unknown): ChatTopLogprob {
    const record = (typeof value === 'object' && value !== null ? value : {}) as WireRecord;
    if (typeof record.token !== 'string' || typeof record.logprob !== 'number') {
      throw new EngineError('protocol', `${this.label} sent a malformed logprob entry`);
    }
    const bytes = Array.isArray(record.bytes) ? (record.bytes as unknown[]).filter((b): b is number => typeof b === 'number') : null;
    return { token: record.token, logprob: record.logprob, bytes };
  }
}

export function chatPayload(request: ChatRequest, model: string): WireRecord {
  const payload: WireRecord = {
    model,
    messages: request.messages.map(wireMessage),
    stream: true,
    stream_options: { include_usage: true },
    ...samplingFields(request.sampling),
  };
  if (request.maxTokens !== undefined) payload.max_tokens = request.maxTokens;
  if (request.tools && request.tools.length > 0) {
    payload.tools = request.tools.map((tool) => {
      const fn: WireRecord = { name: tool.name };
      if (tool.description !== undefined) fn.description = tool.description;
      if (tool.parameters !== undefined) fn.parameters = tool.parameters;
      if (tool.strict !== undefined) fn.strict = tool.strict;
      return { type: 'function', function: fn };
    });
  }
  if (request.toolChoice !== undefined) {
    payload.tool_choice =
      typeof request.toolChoice === 'string'
        ? request.toolChoice
        : { type: 'function', function: { name: request.toolChoice.name } };
  }
  if (request.parallelToolCalls !== undefined) payload.parallel_tool_calls = request.parallelToolCalls;
  if (request.cacheSalt !== undefined) payload.cache_salt = request.cacheSalt;
  if (request.topLogprobs !== undefined) {
    payload.logprobs = true;
    payload.top_logprobs = request.topLogprobs;
  }
  const format = request.structuredOutput;
  if (format?.type === 'json_schema') {
    const schema: WireRecord = { name: format.name ?? 'response', schema: format.schema };
    if (format.strict !== undefined) schema.strict = format.strict;
    payload.response_format = { type: 'json_schema', json_schema: schema };
  } else if (format?.type === 'json_object') {
    payload.response_format = { type: 'json_object' };
  }
  return payload;
}

function wireMessage(message: ChatMessage): WireRecord {
  switch (message.role) {
    case 'system':
    case 'developer':
      return { role: message.role, content: message.content };
    case 'user':
      return {
        role: 'user',
        content:
          typeof message.content === 'string'
            ? message.content
            : message.content.map((part) =>
                part.type === 'text'
                  ? { type: 'text', text: part.text }
                  : { type: 'image_url', image_url: { url: part.imageUrl.url, ...(part.imageUrl.detail ? { detail: part.imageUrl.detail } : {}) } },
              ),
      };
    case 'assistant': {
      const wire: WireRecord = { role: 'assistant', content: message.content };
      if (message.reasoning !== undefined) wire.reasoning_content = message.reasoning;
      if (message.toolCalls && message.toolCalls.length > 0) {
        wire.tool_calls = message.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        }));
      }
      return wire;
    }
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

function finishReasonOf(value: unknown, label: string): ChatFinishReason {
  switch (value) {
    case 'stop':
    case 'length':
    case 'tool_calls':
    case 'content_filter':
    case 'abort':
      return value;
    case 'function_call':
      return 'tool_calls';
    case 'error':
      throw new EngineError('server_error', `${label} reported an error while generating`);
    default:
      if (typeof value !== 'string') throw new EngineError('protocol', `${label} sent a non-string finish_reason`);
      return 'stop';
  }
}
