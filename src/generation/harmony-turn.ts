import { ApiError } from '../common/errors/api-error';
import type { Engine, EngineUsage } from '../engine/engine';
import {
  renderConversationForCompletion,
  STOP_TOKENS_FOR_ASSISTANT_ACTIONS,
  StreamParser,
  type HarmonyMessage,
  type ParsedMessage,
} from '../harmony';
import { structuredOutputOf } from '../prompt/chat-prompt';
import { buildHarmonyPrompt, type HarmonyHistory } from '../prompt/harmony-prompt';
import type { Outcome, OutputEmitter, StreamedItemKind } from './output-emitter';
import type { ResponseRequest } from './response-request';
import type { ResponseRun } from './response-run';
import { cacheSaltOf, failed, messageOf, samplingOf, type RunResult } from './turn-support';
import type { ResponseStreamEvent } from './types/events';
import { UsageCounter } from './usage';

/**
 * One harmony turn: render the prompt, stream token ids through the harmony parser, and map
 * each parsed message to an output item (analysis → reasoning, final → message, a call to
 * `functions.X` → function_call). Built-in tools (more turns) arrive with the tools module.
 */
export async function* harmonyTurn(engine: Engine, run: ResponseRun, emitter: OutputEmitter, signal: AbortSignal): AsyncGenerator<ResponseStreamEvent, RunResult, undefined> {
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
    // The very first text goes out at once (time to first token), even from a large chunk.
    let firstText = true;
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
          if (parser.lastContentDelta !== null) {
            pending += parser.lastContentDelta;
            if (firstText) {
              firstText = false;
              yield emitter.delta(pending);
              pending = '';
            }
          }
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

/** The prompt size of a run, as the engine would receive it. */
export function countHarmonyPromptTokens(run: ResponseRun): number {
  return fitHarmonyPrompt(run.request, harmonyHistory(run), undefined).promptTokens.length;
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
