import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { ReasoningCipher } from '../common/reasoning-cipher';
import type { ChatMessage, ChatTokenLogprob, Engine, EngineUsage, Sampling } from '../engine/engine';
import { EngineError } from '../engine/engine-error';
import { ENGINE, type ConfiguredEngine } from '../engine/engine.module';
import {
  renderConversationForCompletion,
  STOP_TOKENS_FOR_ASSISTANT_ACTIONS,
  StreamParser,
  type HarmonyMessage,
  type ParsedMessage,
} from '../harmony';
import { buildChatPrompt, structuredOutputOf } from '../prompt/chat-prompt';
import { buildHarmonyPrompt, type HarmonyHistory } from '../prompt/harmony-prompt';
import type { ConversationRecord } from '../store/response-store';
import { OutputEmitter, type Outcome, type StreamedItemKind } from './output-emitter';
import type { ResponseRequest } from './response-request';
import type { ResponseRun } from './response-run';
import type { ResponseStreamEvent } from './types/events';
import type { Logprob } from './types/items';
import type { ResponseObject } from './types/response';
import { UsageCounter } from './usage';

export interface RunResult {
  /** The final Response: the fold of every event yielded. */
  response: ResponseObject;
  /** The engine-level conversation after this response, for chaining. */
  conversation: ConversationRecord;
}

/**
 * The generation loop (design.md, "Inside ResponseRunner"): builds the prompt, drives the engine,
 * turns its output into Responses events through the OutputEmitter, and ends every run with one
 * terminal event. It knows nothing of HTTP, queues or where events go.
 *
 * A failure before the engine produced anything (engine unavailable, prompt too long, …) is thrown
 * as an EngineError/ApiError after `response.created`/`in_progress` were yielded, so a foreground
 * caller that has sent nothing yet can still answer with an HTTP error. Once output has started,
 * a failure ends the run with `response.failed`; an aborted signal ends it `cancelled`.
 */
@Injectable()
export class ResponseRunner {
  constructor(
    @Inject(ENGINE) private readonly handle: ConfiguredEngine,
    private readonly cipher: ReasoningCipher,
  ) {}

  async *run(run: ResponseRun, signal: AbortSignal): AsyncGenerator<ResponseStreamEvent, RunResult, undefined> {
    const seal = run.request.include.includes('reasoning.encrypted_content') ? (text: string) => this.cipher.seal(text, run.tenant) : undefined;
    const emitter = new OutputEmitter(run, seal);
    yield* emitter.start();
    if (this.handle.format === 'chat') return yield* this.chatTurn(run, emitter, signal);
    return yield* this.harmonyTurn(this.handle.engine, run, emitter, signal);
  }

  /** The prompt size of a run, as the engine would receive it (harmony engines only). */
  countPromptTokens(run: ResponseRun): number {
    if (this.handle.format !== 'harmony') throw new Error('token counting needs a harmony engine');
    return fitHarmonyPrompt(run.request, harmonyHistory(run), undefined).promptTokens.length;
  }

  /**
   * One harmony turn: render the prompt, stream token ids through the harmony parser, and map
   * each parsed message to an output item (analysis → reasoning, final → message, a call to
   * `functions.X` → function_call). Built-in tools (more turns) arrive with the tools module.
   */
  private async *harmonyTurn(engine: Engine, run: ResponseRun, emitter: OutputEmitter, signal: AbortSignal): AsyncGenerator<ResponseStreamEvent, RunResult, undefined> {
    const request = run.request;
    const contextLength = await engine.contextLength();
    const { prompt, promptTokens } = fitHarmonyPrompt(request, harmonyHistory(run), contextLength);
    const room = contextLength === undefined ? undefined : contextLength - promptTokens.length;
    if (room !== undefined && room <= 0) {
      throw new ApiError(
        400,
        `The prompt is ${promptTokens.length} tokens, which does not fit the model's context of ${contextLength} tokens. ` +
          (request.truncation === 'auto' ? 'Even without earlier turns it is too long: shorten the input.' : "Shorten the input, or set truncation to 'auto'."),
        'invalid_request_error',
        'context_length_exceeded',
        'input',
      );
    }
    const maxTokens = Math.min(request.maxOutputTokens ?? Number.MAX_SAFE_INTEGER, room ?? DEFAULT_MAX_TOKENS);
    const usage = new UsageCounter();
    // Non-strict: real models sometimes emit junk before a header; recover instead of failing.
    const parser = new StreamParser('assistant', false);
    let outcome: Outcome = { status: 'completed' };
    let generated = 0;
    let reasoningTokens = 0;
    let produced = false;
    let openKind: StreamedItemKind | undefined;
    let finishReason: string | undefined;
    let engineUsage: EngineUsage | undefined;
    try {
      const stream = engine.generate({
        promptTokens,
        maxTokens,
        stopTokenIds: STOP_TOKENS_FOR_ASSISTANT_ACTIONS,
        sampling: samplingOf(request),
        // vLLM applies the grammar after the reasoning ends when served with
        // `--reasoning-parser openai_gptoss` (README); the format is also described to the model.
        ...(structuredOutputOf(request) ? { structuredOutput: structuredOutputOf(request)! } : {}),
        ...(request.promptCacheKey ? { cacheSalt: cacheSaltOf(run) } : {}),
        requestId: run.requestId,
        signal,
      });
      for await (const chunk of stream) {
        // Deltas are coalesced per engine chunk: one event for the text of all its tokens.
        let pending = '';
        for (const id of chunk.tokenIds) {
          generated += 1;
          produced = true;
          const completed = parser.messages.length;
          const wasContent = parser.state === 'Content';
          parser.process(id);
          if (parser.state === 'Content' && !wasContent) {
            openKind = itemKindOf(parser.currentChannel, parser.currentRecipient);
            yield* emitter.beginItem(openKind, openKind === 'function_call' ? { name: functionName(parser.currentRecipient) } : undefined);
          } else if (parser.state === 'Content') {
            if (openKind === 'reasoning') reasoningTokens += 1;
            if (parser.lastContentDelta !== null) pending += parser.lastContentDelta;
          }
          if (parser.messages.length > completed) {
            if (pending) yield emitter.delta(pending);
            pending = '';
            const message = parser.messages[parser.messages.length - 1]!;
            if (emitter.openItem) yield* emitter.endItem('completed', message.content);
            else if (message.content) {
              // A message recovered in non-strict mode never had an open item: show it whole.
              yield* emitter.beginItem('reasoning');
              yield emitter.delta(message.content);
              yield* emitter.endItem('completed');
            }
            openKind = undefined;
          }
        }
        if (pending && emitter.openItem) yield emitter.delta(pending);
        if (chunk.finishReason) finishReason = chunk.finishReason;
        if (chunk.usage) engineUsage = chunk.usage;
      }
      if (finishReason === 'length') outcome = { status: 'incomplete', reason: 'max_output_tokens' };
      else if (finishReason === 'abort') outcome = failed('The engine aborted the request.');
      else if (parser.state === 'Content') {
        // The engine ended without a stop token: finish the message as at end of stream.
        parser.processEos();
        const message = parser.messages[parser.messages.length - 1]!;
        yield* emitter.endItem('completed', message.content);
      }
    } catch (error) {
      if (signal.aborted) outcome = { status: 'cancelled' };
      else if (!produced) throw error;
      else outcome = failed(messageOf(error));
    }
    usage.addTurn(promptTokens.length, generated, engineUsage);
    usage.addReasoning(reasoningTokens);
    for (const event of emitter.finish(outcome, usage.toUsage())) yield event;
    const response = emitter.response;
    const calls = { ...prompt.calls };
    for (const item of response.output) if (item.type === 'function_call') calls[item.call_id] = item.name;
    return {
      response,
      conversation: {
        format: 'harmony',
        date: prompt.date,
        messages: [...prompt.conversation, ...parser.messages.map(asHistory)],
        calls,
      },
    };
  }

  private async *chatTurn(run: ResponseRun, emitter: OutputEmitter, signal: AbortSignal): AsyncGenerator<ResponseStreamEvent, RunResult, undefined> {
    if (this.handle.format !== 'chat') throw new Error('not a chat engine');
    const request = run.request;
    const history = run.history?.format === 'chat' ? (run.history.messages as ChatMessage[]) : [];
    const prompt = buildChatPrompt(request, history);
    const usage = new UsageCounter();
    const wantLogprobs = request.include.includes('message.output_text.logprobs');
    const assistant = { content: '', reasoning: '', calls: [] as Array<{ id: string; name: string; arguments: string }> };
    let outcome: Outcome = { status: 'completed' };
    let produced = false;
    let chunks = 0;
    let reasoningChunks = 0;
    let reportedReasoning: number | undefined;
    let currentCall = -1;
    try {
      const stream = this.handle.engine.chat({
        messages: prompt.messages,
        tools: prompt.tools.length > 0 ? prompt.tools : undefined,
        toolChoice: prompt.tools.length > 0 ? prompt.toolChoice : undefined,
        parallelToolCalls: prompt.tools.length > 0 ? request.parallelToolCalls : undefined,
        sampling: samplingOf(request),
        maxTokens: request.maxOutputTokens ?? undefined,
        topLogprobs: wantLogprobs ? request.topLogprobs : undefined,
        structuredOutput: prompt.structuredOutput,
        ...(request.promptCacheKey ? { cacheSalt: cacheSaltOf(run) } : {}),
        requestId: run.requestId,
        signal,
      });
      for await (const delta of stream) {
        chunks += 1;
        if (delta.reasoning) {
          produced = true;
          if (emitter.openItem?.kind !== 'reasoning') yield* emitter.beginItem('reasoning');
          assistant.reasoning += delta.reasoning;
          reasoningChunks += 1;
          yield emitter.delta(delta.reasoning);
        }
        if (delta.content) {
          produced = true;
          if (emitter.openItem?.kind !== 'message') yield* emitter.beginItem('message');
          assistant.content += delta.content;
          yield emitter.delta(delta.content, delta.logprobs?.map(toLogprob));
        }
        for (const call of delta.toolCalls ?? []) {
          produced = true;
          if (call.index !== currentCall) {
            if (call.index < currentCall) throw new EngineError('protocol', `tool call ${call.index} resumed after call ${currentCall} began`);
            currentCall = call.index;
            const callId = call.id ?? `call_${run.responseId.slice(5, 29)}${call.index}`;
            assistant.calls.push({ id: callId, name: call.name ?? '', arguments: '' });
            yield* emitter.beginItem('function_call', { name: call.name ?? '', callId });
          }
          if (call.argumentsDelta) {
            assistant.calls[assistant.calls.length - 1]!.arguments += call.argumentsDelta;
            yield emitter.delta(call.argumentsDelta);
          }
        }
        if (delta.usage) {
          usage.addTurn(0, 0, delta.usage);
          reportedReasoning = delta.usage.reasoningTokens;
        }
        if (delta.finishReason === 'length') outcome = { status: 'incomplete', reason: 'max_output_tokens' };
        else if (delta.finishReason === 'content_filter') outcome = { status: 'incomplete', reason: 'content_filter' };
        else if (delta.finishReason === 'abort') outcome = failed('The engine aborted the request.');
      }
    } catch (error) {
      if (signal.aborted) outcome = { status: 'cancelled' };
      else if (!produced) throw error;
      else outcome = failed(messageOf(error));
    }
    // Servers that report no usage stream about one token per chunk: count chunks then.
    if (usage.outputTokens === 0 && chunks > 0) usage.addTurn(0, chunks);
    usage.addReasoning(reportedReasoning ?? reasoningChunks);
    const events = emitter.finish(outcome, usage.toUsage());
    for (const event of events) yield event;
    const reply: ChatMessage = {
      role: 'assistant',
      content: assistant.content || null,
      ...(assistant.reasoning ? { reasoning: assistant.reasoning } : {}),
      ...(assistant.calls.length > 0 ? { toolCalls: assistant.calls } : {}),
    };
    return {
      response: emitter.response,
      conversation: { format: 'chat', date: '', messages: [...prompt.conversation, reply] },
    };
  }
}

const DEFAULT_MAX_TOKENS = 32_768;

/**
 * The prompt, and with `truncation: "auto"` the oldest whole turns of the history dropped (a turn
 * starts at a user message) until it fits the context; the pinned date and call ids stay.
 */
function fitHarmonyPrompt(
  request: ResponseRequest,
  history: HarmonyHistory | null,
  contextLength: number | undefined,
): { prompt: ReturnType<typeof buildHarmonyPrompt>; promptTokens: number[] } {
  const date = history?.date ?? today();
  let kept = history;
  for (;;) {
    const prompt = buildHarmonyPrompt(request, kept, date);
    const promptTokens = renderConversationForCompletion(prompt.messages, 'assistant').tokens;
    const fits = contextLength === undefined || promptTokens.length < contextLength;
    if (fits || request.truncation !== 'auto' || !kept || kept.messages.length === 0) return { prompt, promptTokens };
    const nextTurn = kept.messages.findIndex((message, index) => index > 0 && message.role === 'user');
    kept = { ...kept, messages: nextTurn < 0 ? [] : kept.messages.slice(nextTurn) };
  }
}

function harmonyHistory(run: ResponseRun): HarmonyHistory | null {
  const history = run.history;
  if (history?.format !== 'harmony') return null;
  return { messages: history.messages as HarmonyMessage[], calls: history.calls ?? {}, date: history.date };
}

/** The conversation date harmony shows the model (UTC, YYYY-MM-DD). */
function today(): string {
  return new Date().toISOString().slice(0, 10);
}

function itemKindOf(channel: string | null, recipient: string | null): StreamedItemKind {
  if (recipient?.startsWith('functions.')) return 'function_call';
  if (channel === 'final' || (channel === 'commentary' && !recipient)) return 'message';
  return 'reasoning';
}

function functionName(recipient: string | null): string {
  return (recipient ?? '').slice('functions.'.length);
}

function asHistory(message: ParsedMessage): HarmonyMessage {
  return { ...message, content: [{ type: 'text', text: message.content }] };
}

/** The prompt cache key, scoped to the tenant so tenants cannot probe each other's cached prompts. */
function cacheSaltOf(run: ResponseRun): string {
  return `${run.tenant}:${run.request.promptCacheKey ?? ''}`;
}

export function samplingOf(request: ResponseRequest): Sampling {
  return {
    ...(request.temperature !== null ? { temperature: request.temperature } : {}),
    ...(request.topP !== null ? { topP: request.topP } : {}),
  };
}

function toLogprob(entry: ChatTokenLogprob): Logprob {
  return {
    token: entry.token,
    logprob: entry.logprob,
    bytes: entry.bytes ?? [...Buffer.from(entry.token, 'utf8')],
    top_logprobs: entry.topLogprobs.map((top) => ({ token: top.token, logprob: top.logprob, bytes: top.bytes ?? [...Buffer.from(top.token, 'utf8')] })),
  };
}

function failed(message: string): Outcome {
  return { status: 'failed', error: { code: 'server_error', message } };
}

function messageOf(error: unknown): string {
  return error instanceof EngineError ? error.message : 'The server had an error while generating the response.';
}
