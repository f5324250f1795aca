import type { ResponseRequest } from '../generation/response-request';
import type { InputItem } from '../generation/types/items';
import type { HarmonyMessage, HarmonyToolNamespace } from '../harmony';
import { unknownCall } from './chat-prompt';
import { contentText, outputText } from './input-text';

export const MODEL_IDENTITY = 'You are ChatGPT, a large language model trained by OpenAI.';
export const KNOWLEDGE_CUTOFF = '2024-06';

export interface HarmonyPrompt {
  /** The conversation to render: system, developer, history, this request's input. */
  messages: HarmonyMessage[];
  /** History and input without system/developer (rebuilt from each request), for chaining. */
  conversation: HarmonyMessage[];
  /** call_id → function name, for matching function_call_output items later in the chain. */
  calls: Record<string, string>;
  /** The conversation date, pinned when the chain started so prompt prefixes stay identical. */
  date: string;
}

export interface HarmonyHistory {
  messages: readonly HarmonyMessage[];
  calls: Readonly<Record<string, string>>;
  date: string;
}

/**
 * Request + stored history → harmony messages (design.md, PromptBuilder). The new request's
 * instructions, tools and reasoning effort always apply (vLLM reuses the old ones; we do not).
 * Chain-of-thought of finished turns is dropped; reasoning before a pending function call is kept.
 */
export function buildHarmonyPrompt(request: ResponseRequest, history: HarmonyHistory | null, today: string): HarmonyPrompt {
  const date = history?.date ?? today;
  const calls: Record<string, string> = { ...(history?.calls ?? {}) };
  const conversation = dropFinishedReasoning(history?.messages ?? []);
  const extraInstructions: string[] = [];
  appendInput(conversation, request.input, calls, extraInstructions);

  const instructions = [request.instructions, ...extraInstructions].filter((text): text is string => !!text).join('\n\n');
  const functions = request.toolChoice === 'none' ? [] : request.tools;
  const system: HarmonyMessage = {
    role: 'system',
    content: [
      {
        type: 'system_content',
        model_identity: MODEL_IDENTITY,
        reasoning_effort: request.reasoningEffort ?? 'medium',
        conversation_start_date: date,
        knowledge_cutoff: KNOWLEDGE_CUTOFF,
        channel_config: { valid_channels: ['analysis', 'commentary', 'final'], channel_required: true },
        tools: null,
      },
    ],
  };
  const messages: HarmonyMessage[] = [system];
  const responseFormat = responseFormatSection(request);
  if (instructions || functions.length > 0 || responseFormat) {
    const tools: Record<string, HarmonyToolNamespace> | null =
      functions.length > 0
        ? {
            functions: {
              name: 'functions',
              description: null,
              tools: functions.map((tool) => ({ name: tool.name, description: tool.description ?? '', parameters: tool.parameters })),
            },
          }
        : null;
    messages.push({
      role: 'developer',
      content: [{ type: 'developer_content', instructions: instructions || null, tools, response_format: responseFormat }],
    });
  }
  messages.push(...conversation);
  return { messages, conversation, calls, date };
}

/** Drops analysis messages of turns that ended in a final answer (everything before the last final). */
export function dropFinishedReasoning(messages: readonly HarmonyMessage[]): HarmonyMessage[] {
  let lastFinal = -1;
  messages.forEach((message, index) => {
    if (message.role === 'assistant' && message.channel === 'final') lastFinal = index;
  });
  return messages.filter((message, index) => index > lastFinal || message.channel !== 'analysis');
}

function responseFormatSection(request: ResponseRequest): { name: string; description: string | null; schema: Record<string, unknown> } | null {
  const format = request.textFormat;
  if (format.type === 'json_schema') return { name: format.name, description: format.description, schema: format.schema };
  if (format.type === 'json_object') return { name: 'json_object', description: 'Any JSON object.', schema: { type: 'object' } };
  return null;
}

function appendInput(conversation: HarmonyMessage[], input: readonly InputItem[], calls: Record<string, string>, instructions: string[]): void {
  input.forEach((item, index) => {
    switch (item.type) {
      case 'message': {
        const text = contentText(item.content);
        if (item.role === 'system' || item.role === 'developer') instructions.push(text);
        else if (item.role === 'user') conversation.push({ role: 'user', content: [{ type: 'text', text }] });
        else conversation.push({ role: 'assistant', channel: 'final', content: [{ type: 'text', text }] });
        return;
      }
      case 'reasoning': {
        const text = (item.content ?? []).map((part) => part.text).join('') || item.summary.map((part) => part.text).join('\n');
        if (text) conversation.push({ role: 'assistant', channel: 'analysis', content: [{ type: 'text', text }] });
        return;
      }
      case 'function_call':
        calls[item.call_id] = item.name;
        conversation.push({
          role: 'assistant',
          recipient: `functions.${item.name}`,
          channel: 'commentary',
          content_type: '<|constrain|>json',
          content: [{ type: 'text', text: item.arguments }],
        });
        return;
      case 'function_call_output': {
        const name = calls[item.call_id];
        if (name === undefined) throw unknownCall(item.call_id, index);
        conversation.push({
          role: 'tool',
          name: `functions.${name}`,
          recipient: 'assistant',
          channel: 'commentary',
          content: [{ type: 'text', text: outputText(item.output) }],
        });
        return;
      }
      case 'item_reference':
        throw new Error('item references must be resolved before prompts are built');
    }
  });
}
