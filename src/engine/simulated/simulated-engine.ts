import { EngineError } from '../engine-error';
import type {
  ChatDelta,
  ChatEngine,
  ChatRequest,
  ChatTokenLogprob,
  Engine,
  EngineHealth,
  EngineUsage,
  GenerateChunk,
  GenerateRequest,
} from '../engine';
import { harmonySimCodec } from './harmony-sim-codec';
import type { SimCodec } from './sim-codec';
import { SimModel, planSlice, type ChatPiece } from './sim-model';
import { paceTokens, type SimSpeed } from './sim-pacer';
import { SimScriptBook, type SimScript } from './sim-scripts';
import { SimStats, type SimRequestRecord } from './sim-stats';

export const SIMULATED_MODEL_ID = 'gpt-oss-simulated';

export interface SimulatedEngineOptions {
  /** Served model id; it must say "simulated" so it is never mistaken for a real model. */
  model?: string;
  contextLength?: number;
  ttftMs?: number;
  tokensPerSecond?: number;
  /** Tokens per chunk when unthrottled (default 16, like a busy vLLM batching its stream). */
  chunkTokens?: number;
  codec?: SimCodec;
}

/**
 * The simulated engine, in-process: implements both engine contracts with the deterministic
 * rules of sim-rules.ts (or a test's scripted completion), at a configurable speed. The HTTP
 * server (sim-server.ts) streams the very same chunks over the vLLM protocol.
 */
export class SimulatedEngine implements Engine, ChatEngine {
  readonly kind = 'simulated' as const;
  readonly scripts = new SimScriptBook();
  readonly stats = new SimStats();
  readonly model: string;
  readonly codec: SimCodec;
  private readonly sim: SimModel;
  private readonly speed: SimSpeed;

  constructor(options: SimulatedEngineOptions = {}) {
    this.model = options.model ?? SIMULATED_MODEL_ID;
    if (!this.model.includes('simulated')) throw new Error(`a simulated engine's model id must contain "simulated" (got ${this.model})`);
    this.codec = options.codec ?? harmonySimCodec();
    this.sim = new SimModel(this.codec, this.scripts, options.contextLength ?? 131_072);
    this.speed = {
      ttftMs: options.ttftMs ?? 0,
      tokensPerSecond: options.tokensPerSecond ?? 0,
      chunkTokens: options.chunkTokens ?? 16,
    };
  }

  async modelId(): Promise<string> {
    return this.model;
  }

  async contextLength(): Promise<number> {
    return this.sim.contextLength;
  }

  get contextWindow(): number {
    return this.sim.contextLength;
  }

  async health(): Promise<EngineHealth> {
    return { up: true, model: this.model, contextLength: this.sim.contextLength };
  }

  async close(): Promise<void> {
    // Nothing to release: no connections, no timers outside running streams.
  }

  async *generate(request: GenerateRequest): AsyncGenerator<GenerateChunk, void, undefined> {
    throwIfAborted(request.signal);
    const promptText = this.codec.decode(request.promptTokens);
    const record = this.stats.begin('completions', true, promptText, request.promptTokens.length, request.maxTokens);
    this.checkContext(record, request.promptTokens.length, request.maxTokens);
    const plan = this.sim.planCompletion({ ...request, promptText });
    if (plan.script) record.scriptId = plan.script.id;
    const usage: EngineUsage = { promptTokens: request.promptTokens.length, completionTokens: plan.total };
    const last = (tokenIds: number[]): GenerateChunk => {
      const chunk: GenerateChunk = { tokenIds, finishReason: plan.finishReason, usage };
      if (plan.stopTokenId !== undefined) chunk.stopTokenId = plan.stopTokenId;
      return chunk;
    };
    try {
      let sent = 0;
      for await (const end of paceTokens(plan.total, this.speedFor(plan.script), request.signal)) {
        const tokenIds = planSlice(plan, sent, end);
        this.stats.addTokens(record, end - sent);
        sent = end;
        yield end === plan.total ? last(tokenIds) : { tokenIds };
      }
      if (plan.total === 0) yield last([]);
      this.stats.end(record, 'completed', { finishReason: plan.finishReason });
    } catch (error) {
      throw this.failure(error, record, request.signal);
    } finally {
      // Still active here means the consumer stopped reading: the simulated connection closed.
      this.stats.end(record, 'aborted');
    }
  }

  async *chat(request: ChatRequest): AsyncGenerator<ChatDelta, void, undefined> {
    throwIfAborted(request.signal);
    const promptText = chatPromptText(request);
    const promptTokens = this.codec.encodeOrdinary(promptText).length + 4 * request.messages.length;
    const maxTokens = request.maxTokens ?? Math.max(0, this.sim.contextLength - promptTokens);
    const record = this.stats.begin('chat', true, promptText, promptTokens, maxTokens);
    this.checkContext(record, promptTokens, maxTokens);
    const plan = this.sim.planChat({ ...request, promptText, maxTokens });
    if (plan.script) record.scriptId = plan.script.id;
    const pieces = plan.pieces;
    const usage: EngineUsage = {
      promptTokens,
      completionTokens: pieces.length,
      reasoningTokens: pieces.filter((p) => p.kind === 'reasoning').length,
    };
    try {
      let sent = 0;
      const announced = new Set<number>();
      for await (const end of paceTokens(pieces.length, this.speedFor(plan.script), request.signal)) {
        const deltas = this.chatDeltas(pieces, sent, end, announced, request.topLogprobs);
        this.stats.addTokens(record, end - sent);
        sent = end;
        for (const delta of deltas) yield delta;
      }
      yield { finishReason: plan.finishReason, usage };
      this.stats.end(record, 'completed', { finishReason: plan.finishReason });
    } catch (error) {
      throw this.failure(error, record, request.signal);
    } finally {
      this.stats.end(record, 'aborted');
    }
  }

  /** Per-request speed: a script's own speed wins over the engine's. */
  speedFor(script: SimScript | undefined): SimSpeed {
    if (!script) return this.speed;
    return {
      ttftMs: script.ttftMs ?? this.speed.ttftMs,
      tokensPerSecond: script.tokensPerSecond ?? this.speed.tokensPerSecond,
      chunkTokens: this.speed.chunkTokens,
    };
  }

  private checkContext(record: SimRequestRecord, promptTokens: number, maxTokens: number): void {
    const message = this.sim.contextError(promptTokens, maxTokens);
    if (message === undefined) return;
    this.stats.end(record, 'rejected', { error: message });
    throw new EngineError('context_length_exceeded', message, { engineStatus: 400 });
  }

  private failure(error: unknown, record: SimRequestRecord, signal: AbortSignal): unknown {
    if (signal.aborted) {
      this.stats.end(record, 'aborted');
      return new EngineError('aborted', 'the request to the simulated engine was aborted', { cause: signal.reason });
    }
    this.stats.end(record, 'rejected', { error: String(error) });
    return error;
  }

  /** Deltas for pieces [from, to): one per run of the same kind (reasoning, content, one tool call). */
  private chatDeltas(pieces: readonly ChatPiece[], from: number, to: number, announced: Set<number>, topLogprobs: number | undefined): ChatDelta[] {
    const deltas: ChatDelta[] = [];
    let current: ChatDelta | undefined;
    let currentKey = '';
    for (let i = from; i < to; i++) {
      const piece = pieces[i]!;
      const key = piece.kind === 'tool' ? `tool:${piece.index}` : piece.kind;
      if (!current || key !== currentKey) {
        current = {};
        currentKey = key;
        deltas.push(current);
      }
      if (piece.kind === 'tool') {
        current.toolCalls ??= [{ index: piece.index, argumentsDelta: '' }];
        const call = current.toolCalls[0]!;
        if (!announced.has(piece.index)) {
          announced.add(piece.index);
          call.id = piece.id;
          call.name = piece.name;
        }
        call.argumentsDelta += piece.text;
      } else if (piece.kind === 'reasoning') {
        current.reasoning = (current.reasoning ?? '') + piece.text;
      } else {
        current.content = (current.content ?? '') + piece.text;
      }
      if (topLogprobs !== undefined && piece.kind !== 'reasoning') {
        (current.logprobs ??= []).push(this.logprob(piece, topLogprobs));
      }
    }
    return deltas;
  }

  /** Made-up but deterministic logprobs: the sampled token first, then `k` lower alternatives. */
  private logprob(piece: ChatPiece, k: number): ChatTokenLogprob {
    const logprob = -((piece.tokenId % 97) + 1) / 100;
    const bytes = Array.from(new TextEncoder().encode(piece.text));
    const topLogprobs = [{ token: piece.text, logprob, bytes }];
    for (let j = 1; j < k; j++) {
      const alternative = this.codec.decode([(piece.tokenId + j) % 199_998]);
      topLogprobs.push({ token: alternative, logprob: logprob - j, bytes: Array.from(new TextEncoder().encode(alternative)) });
    }
    return { token: piece.text, logprob, bytes, topLogprobs: topLogprobs.slice(0, k) };
  }
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new EngineError('aborted', 'the request to the simulated engine was aborted', { cause: signal.reason });
}

/** What scripts are matched against for chat: every message's text, one per line. */
export function chatPromptText(request: Pick<ChatRequest, 'messages'>): string {
  return request.messages
    .map((m) => {
      if (m.role === 'user' && typeof m.content !== 'string') return m.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
      return m.content ?? '';
    })
    .join('\n');
}
