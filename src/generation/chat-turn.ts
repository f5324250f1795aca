import type { ChatEngine, ChatMessage, ChatTokenLogprob } from '../engine/engine';
import { EngineError } from '../engine/engine-error';
import { buildChatPrompt } from '../prompt/chat-prompt';
import type { Outcome, OutputEmitter } from './output-emitter';
import type { ResponseRun } from './response-run';
import { cacheSaltOf, failed, messageOf, samplingOf, type RunResult } from './turn-support';
import type { ResponseStreamEvent } from './types/events';
import type { Logprob } from './types/items';
import { UsageCounter } from './usage';

/** One chat-completions turn: reasoning, content and tool-call deltas mapped to output items. */
export async function* chatTurn(engine: ChatEngine, run: ResponseRun, emitter: OutputEmitter, signal: AbortSignal): AsyncGenerator<ResponseStreamEvent, RunResult, undefined> {
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
    const stream = engine.chat({
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

function toLogprob(entry: ChatTokenLogprob): Logprob {
  return {
    token: entry.token,
    logprob: entry.logprob,
    bytes: entry.bytes ?? [...Buffer.from(entry.token, 'utf8')],
    top_logprobs: entry.topLogprobs.map((top) => ({ token: top.token, logprob: top.logprob, bytes: top.bytes ?? [...Buffer.from(top.token, 'utf8')] })),
  };
}
