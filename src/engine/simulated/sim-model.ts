/**
 * The simulated model: turns a prompt into the exact completion the engine will stream, either a
 * test's scripted completion (matched by marker) or the answer of the documented rules. Timing
 * and transport are elsewhere; this is pure planning.
 */
import type {
  ChatFinishReason,
  ChatMessage,
  ChatTool,
  ChatToolChoice,
  FinishReason,
  StructuredOutput,
} from '../engine';
import type { SimCodec, SimParsedMessage } from './sim-codec';
import { reply, type SimConversation, type SimMessage, type SimReplyOptions } from './sim-rules';
import type { SimScript, SimScriptBook } from './sim-scripts';
import { parseNamespaceTools, simTypeFromSchema } from './tool-signatures';

/** Completion token ids, generated lazily: a looping script repeats `base` up to `total`. */
export interface CompletionPlan {
  base: readonly number[];
  total: number;
  finishReason: FinishReason;
  stopTokenId?: number;
  script?: SimScript;
}

export type ChatPiece =
  | { kind: 'reasoning' | 'content'; text: string; tokenId: number }
  | { kind: 'tool'; index: number; id: string; name: string; text: string; tokenId: number };

export interface ChatPlan {
  /** One piece per output token. */
  pieces: ChatPiece[];
  finishReason: ChatFinishReason;
  script?: SimScript;
}

export interface CompletionPlanInput {
  promptTokens: readonly number[];
  promptText: string;
  maxTokens: number;
  stopTokenIds: readonly number[];
  structuredOutput?: StructuredOutput;
}

export interface ChatPlanInput {
  messages: readonly ChatMessage[];
  tools?: readonly ChatTool[];
  toolChoice?: ChatToolChoice;
  promptText: string;
  maxTokens: number;
  structuredOutput?: StructuredOutput;
}

export class SimModel {
  constructor(
    private readonly codec: SimCodec,
    private readonly scripts: SimScriptBook,
    readonly contextLength: number,
  ) {}

  /** vLLM's wording, so clients classify the error exactly as they would a real engine's. */
  contextError(promptTokens: number, maxTokens: number): string | undefined {
    if (promptTokens >= this.contextLength) {
      return `This model's maximum context length is ${this.contextLength} tokens. However, your request has ${promptTokens} input tokens. Please reduce the length of the input messages.`;
    }
    if (promptTokens + maxTokens > this.contextLength) {
      return `'max_tokens' is too large: ${maxTokens}. This model's maximum context length is ${this.contextLength} tokens and your request has ${promptTokens} input tokens (${maxTokens} > ${this.contextLength} - ${promptTokens}).`;
    }
    return undefined;
  }

  planCompletion(input: CompletionPlanInput): CompletionPlan {
    const script = this.scripts.take(input.promptText);
    let ids: readonly number[];
    if (script) {
      ids = typeof script.completion === 'string' ? this.codec.encodeHarmony(script.completion) : script.completion;
    } else {
      ids = this.render(reply(this.conversationFromHarmony(input.promptTokens), replyOptions(input.structuredOutput)));
    }
    const plan = cut(ids, input.maxTokens, new Set(input.stopTokenIds), script?.loop === true);
    if (script) plan.script = script;
    return plan;
  }

  planChat(input: ChatPlanInput): ChatPlan {
    const script = this.scripts.take(input.promptText);
    let messages: SimMessage[];
    if (script) {
      messages = this.scriptedChatMessages(script);
    } else {
      messages = reply(this.conversationFromChat(input), replyOptions(input.structuredOutput));
    }
    const pieces: ChatPiece[] = [];
    let toolIndex = 0;
    for (const message of messages) {
      const name = message.recipient?.startsWith('functions.') ? message.recipient.slice('functions.'.length) : message.recipient;
      if (name !== undefined && name !== 'assistant') {
        const index = toolIndex++;
        const id = `call_sim_${fnv1a(`${input.promptText.length}:${index}:${name}:${message.content}`)}`;
        // An empty argument string still streams one piece, so the call is announced.
        const text = message.content === '' ? '{}' : message.content;
        for (const [tokenId, piece] of this.pieces(text)) pieces.push({ kind: 'tool', index, id, name, text: piece, tokenId });
        continue;
      }
      const kind = message.channel === 'analysis' ? 'reasoning' : 'content';
      for (const [tokenId, text] of this.pieces(message.content)) pieces.push({ kind, text, tokenId });
    }
    if (pieces.length > input.maxTokens) {
      return { pieces: pieces.slice(0, input.maxTokens), finishReason: 'length', ...(script ? { script } : {}) };
    }
    const finishReason: ChatFinishReason = toolIndex > 0 ? 'tool_calls' : 'stop';
    return { pieces, finishReason, ...(script ? { script } : {}) };
  }

  /** Completion ids of rule messages, in the form gpt-oss writes them (the first header follows the prompt's `<|start|>assistant`). */
  render(messages: readonly SimMessage[]): number[] {
    const { start, channel, message: messageToken, constrain, end, call } = this.codec.special;
    const ids: number[] = [];
    const text = (value: string): void => {
      if (value !== '') for (const id of this.codec.encodeOrdinary(value)) ids.push(id);
    };
    messages.forEach((message, i) => {
      if (i > 0) {
        ids.push(start);
        text('assistant');
      }
      ids.push(channel);
      text(message.channel);
      if (message.recipient) text(` to=${message.recipient}`);
      if (message.contentType?.startsWith('<|constrain|>')) {
        text(' ');
        ids.push(constrain);
        text(message.contentType.slice('<|constrain|>'.length));
      } else if (message.contentType) {
        text(` ${message.contentType}`);
      }
      ids.push(messageToken);
      text(message.content);
      ids.push(message.end === 'call' ? call : message.end === 'return' ? this.codec.special.return : end);
    });
    return ids;
  }

  conversationFromHarmony(promptTokens: readonly number[]): SimConversation {
    let parsed: SimParsedMessage[];
    try {
      parsed = this.codec.parseConversation(this.withoutOpenAssistantTurn(promptTokens));
    } catch {
      return { lastRole: 'none', userText: '', functionTools: [], browser: false, python: false };
    }
    const system = parsed.find((m) => m.role === 'system')?.content ?? '';
    const developer = parsed.find((m) => m.role === 'developer')?.content ?? '';
    const last = parsed.at(-1);
    const conversation: SimConversation = {
      lastRole: isRole(last?.role) ? last.role : 'none',
      userText: parsed.findLast((m) => m.role === 'user')?.content ?? '',
      functionTools: parseNamespaceTools(developer, 'functions'),
      browser: /^## browser$/m.test(system),
      python: /^## python$/m.test(system),
    };
    if (last?.role === 'tool') conversation.toolResult = { name: last.name ?? 'tool', output: last.content };
    return conversation;
  }

  conversationFromChat(input: Pick<ChatPlanInput, 'messages' | 'tools' | 'toolChoice'>): SimConversation {
    const last = input.messages.at(-1);
    const user = input.messages.findLast((m) => m.role === 'user');
    const conversation: SimConversation = {
      lastRole: last ? last.role : 'none',
      userText: user ? chatText(user) : '',
      functionTools: (input.tools ?? []).map((tool) =>
        tool.parameters === undefined ? { name: tool.name } : { name: tool.name, params: simTypeFromSchema(tool.parameters) },
      ),
      browser: false,
      python: false,
    };
    if (input.toolChoice !== undefined) conversation.toolChoice = input.toolChoice;
    if (last?.role === 'tool') {
      const call = input.messages
        .flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []))
        .find((c) => c.id === last.toolCallId);
      conversation.toolResult = { name: call?.name ?? 'tool', output: last.content };
    }
    return conversation;
  }

  /** `[id, text]` per token of `text`; a character split over tokens lands on its last token. */
  private *pieces(text: string): Generator<[number, string]> {
    const decoder = new TextDecoder();
    for (const id of this.codec.encodeOrdinary(text)) {
      yield [id, decoder.decode(this.codec.tokenBytes(id), { stream: true })];
    }
  }

  private scriptedChatMessages(script: SimScript): SimMessage[] {
    const ids = typeof script.completion === 'string' ? this.codec.encodeHarmony(script.completion) : script.completion;
    if (!ids.includes(this.codec.special.message)) {
      // Plain text: the whole completion is the answer.
      return [{ channel: 'final', content: this.codec.decode(ids), end: 'return' }];
    }
    return this.codec.parseCompletion(ids).map((m) => ({
      channel: m.channel === 'analysis' || m.channel === 'commentary' ? m.channel : 'final',
      ...(m.recipient !== undefined ? { recipient: m.recipient } : {}),
      content: m.content,
      end: 'end',
    }));
  }

  /** The prompt ends with `<|start|>assistant` (the turn to complete); it is not a message. */
  private withoutOpenAssistantTurn(ids: readonly number[]): readonly number[] {
    const lastStart = ids.lastIndexOf(this.codec.special.start);
    if (lastStart !== -1 && this.codec.decode(ids.slice(lastStart + 1)).trim() === 'assistant') return ids.slice(0, lastStart);
    return ids;
  }
}

function cut(ids: readonly number[], maxTokens: number, stops: ReadonlySet<number>, loop: boolean): CompletionPlan {
  const limit = Math.max(0, maxTokens);
  const length = loop ? limit : ids.length;
  for (let i = 0; i < Math.min(length, ids.length); i++) {
    if (i >= limit) break;
    const id = ids[i]!;
    if (stops.has(id)) return { base: ids, total: i + 1, finishReason: 'stop', stopTokenId: id };
  }
  if (length > limit || (loop && ids.length > 0)) return { base: ids, total: limit, finishReason: 'length' };
  // The completion ran out without a stop token: the model's end-of-sequence.
  return { base: ids, total: Math.min(ids.length, limit), finishReason: 'stop' };
}

function replyOptions(output: StructuredOutput | undefined): SimReplyOptions {
  if (!output) return {};
  return { structuredOutput: output.type === 'json_schema' ? { schema: output.schema } : {} };
}

function isRole(role: string | undefined): role is SimConversation['lastRole'] {
  return role === 'user' || role === 'tool' || role === 'assistant' || role === 'system' || role === 'developer';
}

function chatText(message: ChatMessage): string {
  if (message.role !== 'user') return message.content ?? '';
  return typeof message.content === 'string'
    ? message.content
    : message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** Stable short hash for deterministic ids. */
export function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/** Tokens [from, to) of a plan (a looping plan repeats its base). */
export function planSlice(plan: CompletionPlan, from: number, to: number): number[] {
  const base = plan.base;
  if (to <= base.length) return base.slice(from, to);
  const out = new Array<number>(to - from);
  for (let i = from; i < to; i++) out[i - from] = base[i % base.length]!;
  return out;
}
