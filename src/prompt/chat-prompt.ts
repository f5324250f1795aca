import type { ChatMessage, ChatTool, ChatToolCall, ChatToolChoice, StructuredOutput } from '../engine/engine';
import { ApiError, Errors } from '../common/errors/api-error';
import type { ResponseRequest } from '../generation/response-request';
import type { InputItem } from '../generation/types/items';
import { contentText, outputText } from './input-text';

export interface ChatPrompt {
  /** The full prompt: instructions, then history, then this request's input. */
  messages: ChatMessage[];
  /** What a follow-up response replays (no instructions: they are not inherited). */
  conversation: ChatMessage[];
  tools: ChatTool[];
  toolChoice: ChatToolChoice;
  structuredOutput?: StructuredOutput;
}

/**
 * Request + stored history → chat-completions messages, for engines that are not harmony.
 * Every input item is replayed in order (vLLM drops non-message items when chaining; we do not):
 * reasoning rides on the assistant message it precedes, consecutive function calls become one
 * assistant message with several tool calls, and each output becomes a `tool` message.
 */
export function buildChatPrompt(request: ResponseRequest, history: readonly ChatMessage[]): ChatPrompt {
  const conversation: ChatMessage[] = [...history];
  const knownCalls = new Set<string>();
  for (const message of history) {
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) knownCalls.add(call.id);
  }
  appendInput(conversation, request.input, knownCalls);
  const messages: ChatMessage[] = request.instructions ? [{ role: 'system', content: request.instructions }, ...conversation] : conversation;
  return {
    messages,
    conversation,
    tools: request.tools.map((tool) => ({
      name: tool.name,
      ...(tool.description !== null ? { description: tool.description } : {}),
      ...(tool.parameters !== null ? { parameters: tool.parameters } : {}),
      strict: tool.strict,
    })),
    toolChoice: typeof request.toolChoice === 'string' ? request.toolChoice : { name: request.toolChoice.name },
    structuredOutput: structuredOutputOf(request),
  };
}

export function structuredOutputOf(request: ResponseRequest): StructuredOutput | undefined {
  const format = request.textFormat;
  if (format.type === 'json_schema') return { type: 'json_schema', schema: format.schema, name: format.name, strict: format.strict };
  if (format.type === 'json_object') return { type: 'json_object' };
  return undefined;
}

function appendInput(messages: ChatMessage[], input: readonly InputItem[], knownCalls: Set<string>): void {
  let pendingReasoning = '';
  input.forEach((item, index) => {
    switch (item.type) {
      case 'message': {
        const text = contentText(item.content);
        if (item.role === 'assistant') {
          messages.push({ role: 'assistant', content: text, ...(pendingReasoning ? { reasoning: pendingReasoning } : {}) });
          pendingReasoning = '';
        } else {
          messages.push({ role: item.role, content: text });
        }
        return;
      }
      case 'reasoning':
        pendingReasoning += (item.content ?? []).map((part) => part.text).join('') || item.summary.map((part) => part.text).join('');
        return;
      case 'function_call': {
        const call: ChatToolCall = { id: item.call_id, name: item.name, arguments: item.arguments };
        knownCalls.add(item.call_id);
        const last = messages[messages.length - 1];
        if (last?.role === 'assistant' && !pendingReasoning && (last.toolCalls || last.content === null || last.content === '')) {
          messages[messages.length - 1] = { ...last, toolCalls: [...(last.toolCalls ?? []), call] };
        } else {
          messages.push({ role: 'assistant', content: null, toolCalls: [call], ...(pendingReasoning ? { reasoning: pendingReasoning } : {}) });
          pendingReasoning = '';
        }
        return;
      }
      case 'function_call_output':
        if (!knownCalls.has(item.call_id)) throw unknownCall(item.call_id, index);
        messages.push({ role: 'tool', toolCallId: item.call_id, content: outputText(item.output) });
        return;
      case 'item_reference':
        // References are resolved into items by the service before prompts are built.
        throw Errors.invalidValue(`input.${index}.id`, `item '${item.id}' could not be resolved`);
    }
  });
  if (pendingReasoning) messages.push({ role: 'assistant', content: null, reasoning: pendingReasoning });
}

export function unknownCall(callId: string, index: number): ApiError {
  return Errors.invalidValue(
    `input.${index}.call_id`,
    `no function call with call_id '${callId}' was found in the input or in the previous response`,
  );
}
