import { EngineError } from '../engine-error';
import type { Engine, EngineUsage, FinishReason, GenerateChunk, GenerateRequest, StructuredOutput } from '../engine';
import { HttpEngine, type HttpEngineOptions } from '../http/http-engine';
import { firstChoice, samplingFields, usageFrom, type WireRecord } from '../http/wire';
import { harmonyTextCodec } from './harmony-text-codec';
import { TextReencoder, type TokenTextCodec } from './text-reencoder';

/**
 * Where a structured-output constraint goes in the request. vLLM ≥ 0.12 only knows
 * `structured_outputs: {json: schema}` (the `guided_json` family was removed in v0.12.0);
 * `guided_json` is kept for older vLLM builds.
 */
export type StructuredOutputField = 'structured_outputs' | 'guided_json';

export interface VllmEngineOptions extends HttpEngineOptions {
  structuredOutputField?: StructuredOutputField;
  /** Re-encodes `text` of engines that omit `token_ids` (default: o200k_harmony). */
  textCodec?: TokenTextCodec;
}

/**
 * Harmony token engine over a vLLM-compatible `/v1/completions` endpoint (vLLM, and the
 * compatible servers of TensorRT-LLM and SGLang): the prompt goes as token ids and each streamed
 * chunk's `choices[0].token_ids` comes back. Aborting the request's signal closes the HTTP
 * connection, which is how vLLM learns to stop generating.
 */
export class VllmEngine extends HttpEngine implements Engine {
  readonly kind = 'vllm' as const;
  constructor(private readonly options: VllmEngineOptions) {
    super(options, `the vLLM engine at ${options.url}`);
  }

  async *generate(request: GenerateRequest): AsyncGenerator<GenerateChunk, void, undefined> {
    const payload = this.payload(request, await this.modelIdFor(request.signal));
    let reencoder: TextReencoder | undefined;
    let final: GenerateChunk | undefined;
    let usage: EngineUsage | undefined;
    let lastId = -1;
    try {
      for await (const batch of this.http.streamEvents({
        path: '/v1/completions',
        payload,
        signal: request.signal,
        requestId: request.requestId,
      })) {
        // Events that arrived together leave as one chunk: fewer async steps for the consumer.
        let pending: number[] | undefined;
        for (const event of batch) {
          const reported = (event as WireRecord).usage;
          if (reported !== undefined && reported !== null) usage = usageFrom(reported) ?? usage;
          const choice = firstChoice(event, this.label);
          if (choice === undefined) continue;
          let tokenIds = tokenIdsOf(choice.token_ids, this.label);
          if (tokenIds === undefined) {
            if (typeof choice.text !== 'string') {
              throw new EngineError('protocol', `${this.label} sent a chunk with neither "token_ids" nor "text"`);
            }
            reencoder ??= new TextReencoder(this.options.textCodec ?? harmonyTextCodec());
            tokenIds = reencoder.push(choice.text);
          }
          const finish = choice.finish_reason;
          if (finish === undefined || finish === null) {
            if (final !== undefined) throw new EngineError('protocol', `${this.label} sent tokens after finishing`);
            if (tokenIds.length === 0) continue;
            if (pending === undefined) pending = tokenIds;
            else for (let i = 0; i < tokenIds.length; i++) pending.push(tokenIds[i]!);
            lastId = tokenIds[tokenIds.length - 1]!;
            continue;
          }
          if (final !== undefined) throw new EngineError('protocol', `${this.label} finished twice`);
          if (reencoder) tokenIds.push(...reencoder.flush());
          if (tokenIds.length > 0) lastId = tokenIds[tokenIds.length - 1]!;
          // Held back until the usage chunk that follows it, so both travel together.
          final = this.finalChunk(finish, choice.stop_reason, tokenIds, lastId, request.stopTokenIds);
        }
        if (pending !== undefined) yield { tokenIds: pending };
      }
    } catch (error) {
      // A stall after the finish chunk only cost us the usage numbers.
      if (!(final && error instanceof EngineError && error.kind === 'timeout')) throw error;
    }
    if (final === undefined) {
      throw new EngineError('server_error', `${this.label} ended the stream before generation finished`);
    }
    if (usage) final.usage = usage;
    yield final;
  }

  private async modelIdFor(signal: AbortSignal): Promise<string> {
    if (signal.aborted) throw new EngineError('aborted', `the request to ${this.label} was aborted`, { cause: signal.reason });
    return this.info.modelId();
  }

  private payload(request: GenerateRequest, model: string): WireRecord {
    const payload: WireRecord = {
      model,
      prompt: request.promptTokens,
      max_tokens: request.maxTokens,
      stream: true,
      stream_options: { include_usage: true },
      return_token_ids: true,
      skip_special_tokens: false,
      stop_token_ids: request.stopTokenIds,
      ...samplingFields(request.sampling),
    };
    if (request.structuredOutput) Object.assign(payload, this.structuredFields(request.structuredOutput));
    if (request.cacheSalt !== undefined) payload.cache_salt = request.cacheSalt;
    return payload;
  }

  private structuredFields(output: StructuredOutput): WireRecord {
    if (this.options.structuredOutputField === 'guided_json') {
      return { guided_json: output.type === 'json_schema' ? output.schema : { type: 'object' } };
    }
    return { structured_outputs: output.type === 'json_schema' ? { json: output.schema } : { json_object: true } };
  }

  private finalChunk(
    finish: unknown,
    stopReason: unknown,
    tokenIds: number[],
    lastId: number,
    stopTokenIds: readonly number[],
  ): GenerateChunk {
    const finishReason = finishReasonOf(finish, this.label);
    const chunk: GenerateChunk = { tokenIds, finishReason };
    if (finishReason === 'stop' && typeof stopReason === 'number' && stopTokenIds.includes(stopReason)) {
      chunk.stopTokenId = stopReason;
      // Some servers drop the stop token from the output; the harmony parser needs it.
      if (lastId !== stopReason) tokenIds.push(stopReason);
    } else if (finishReason === 'stop' && stopTokenIds.includes(lastId)) {
      chunk.stopTokenId = lastId;
    }
    return chunk;
  }
}

function tokenIdsOf(value: unknown, label: string): number[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw new EngineError('protocol', `${label} sent "token_ids" that is not an array`);
  for (let i = 0; i < value.length; i++) {
    const id: unknown = value[i];
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 0) {
      throw new EngineError('protocol', `${label} sent an invalid token id: ${JSON.stringify(id)}`);
    }
  }
  return value as number[];
}

function finishReasonOf(value: unknown, label: string): FinishReason {
  switch (value) {
    case 'length':
      return 'length';
    case 'abort':
      return 'abort';
    case 'error':
      throw new EngineError('server_error', `${label} reported an error while generating`);
    default:
      if (typeof value !== 'string') throw new EngineError('protocol', `${label} sent a non-string finish_reason`);
      // "stop", "eos", "stop_sequence"…: the engine ended by its own rule.
      return 'stop';
  }
}
