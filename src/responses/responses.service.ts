import { Inject, Injectable, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { clientAbortSignal } from '../common/client-abort';
import { ApiError, Errors } from '../common/errors/api-error';
import { isResponseId, newResponseId } from '../common/ids';
import { SseWriter } from '../common/sse-writer';
import { EngineError } from '../engine/engine-error';
import { ENGINE, type ConfiguredEngine } from '../engine/engine.module';
import type { ResponseRequest } from '../generation/response-request';
import type { ResponseRun } from '../generation/response-run';
import { ResponseRunner, type RunResult } from '../generation/response-runner';
import type { ResponseStreamEvent } from '../generation/types/events';
import type { InputItem, OutputItem, StoredInputItem } from '../generation/types/items';
import type { ResponseObject } from '../generation/types/response';
import { ResponseStore, type ConversationRecord } from '../store/response-store';
import { BackgroundResponses } from './background-responses.service';
import { engineErrorToApi } from './engine-errors';
import { pageOf, toStoredInputItems, type ItemPage } from './input-items';
import type { InputItemsQuery, RetrieveQuery } from './request/query-params';
import { parseTokenCountRequest } from './request/create-request';
import { ReasoningCipher } from '../common/reasoning-cipher';


const LIFECYCLE_START = new Set(['response.created', 'response.in_progress', 'response.queued']);


/**
 * The Responses use cases: create (sync or streamed), retrieve, delete, list input items. It
 * resolves history, builds the run, calls the one ResponseRunner, and persists what `store` asks.
 */
@Injectable()
export class ResponsesService {
  private readonly logger = new Logger(ResponsesService.name);

  constructor(
    private readonly runner: ResponseRunner,
    private readonly store: ResponseStore,
    private readonly cipher: ReasoningCipher,
    private readonly background: BackgroundResponses,
    @Inject(ENGINE) private readonly engine: ConfiguredEngine,
  ) {}

  async create(request: ResponseRequest, tenant: string, reply: FastifyReply): Promise<void> {
    const run = await this.prepare(request, tenant, String(reply.request.id));
    if (request.background) return this.background.start(run, reply);
    const signal = clientAbortSignal(reply);
    if (request.stream) await this.stream(run, reply, signal);
    else await reply.send(await this.complete(run, signal));
  }

  /** `POST /v1/responses/input_tokens`: the prompt the request would send, counted exactly. */
  async countInputTokens(body: unknown, tenant: string): Promise<{ object: 'response.input_tokens'; input_tokens: number }> {
    if (this.engine.format !== 'harmony') {
      throw Errors.unsupportedParameter('model', 'counting input tokens needs the model tokenizer, which chat-completions engines do not expose.');
    }
    const request = parseTokenCountRequest(body, await this.engine.engine.modelId());
    const run = await this.prepare(request, tenant, 'input-tokens');
    return { object: 'response.input_tokens', input_tokens: this.runner.countPromptTokens(run) };
  }

  /** `POST /v1/responses/{id}/cancel` (any replica). */
  async cancel(id: string, tenant: string): Promise<ResponseObject> {
    return this.background.cancel(await this.owned(id, tenant));
  }

  async retrieve(id: string, tenant: string, query: RetrieveQuery, reply: FastifyReply): Promise<void> {
    const { response } = await this.owned(id, tenant);
    if (!query.stream) return void (await reply.send(this.present(response, query.include, tenant)));
    if (!response.background) throw Errors.invalidValue('stream', 'only background responses can be streamed again');
    await this.background.follow(id, query.startingAfter ?? -1, reply);
  }

  async delete(id: string, tenant: string): Promise<{ id: string; object: 'response'; deleted: true }> {
    await this.owned(id, tenant);
    await this.store.delete(id);
    return { id, object: 'response', deleted: true };
  }

  async listInputItems(id: string, tenant: string, query: InputItemsQuery): Promise<ItemPage<StoredInputItem>> {
    // `include` values that apply to input items (images, tool outputs) need inputs this server does not take yet.
    await this.owned(id, tenant);
    const page = pageOf((await this.store.loadInput(id)) ?? [], query);
    if ('unknownCursor' in page) {
      const cursor = page.unknownCursor;
      throw Errors.invalidValue(cursor, `no input item with id '${query[cursor] ?? ''}' in this response`);
    }
    return page;
  }

  /** Validates the request against what this server and its engine can do, and resolves history. */
  async prepare(request: ResponseRequest, tenant: string, requestId: string): Promise<ResponseRun> {
    const model = await this.engine.engine.modelId().catch((error: unknown) => {
      throw toApiError(error);
    });
    if (request.model !== model) {
      throw new ApiError(404, `The model '${request.model}' does not exist. This server serves '${model}'.`, 'invalid_request_error', 'model_not_found', 'model');
    }
    this.checkEngineCanHonour(request);
    let history: ConversationRecord | null = null;
    let previousOutput: OutputItem[] = [];
    let previousInput: StoredInputItem[] = [];
    if (request.previousResponseId !== null) {
      const found = isResponseId(request.previousResponseId) ? await this.store.loadWithConversation(request.previousResponseId) : null;
      if (!found || found.stored.tenant !== tenant || !found.conversation) {
        throw new ApiError(
          400,
          `Previous response with id '${request.previousResponseId}' not found.`,
          'invalid_request_error',
          'previous_response_not_found',
          'previous_response_id',
        );
      }
      history = found.conversation;
      previousOutput = found.stored.response.output;
      previousInput = (await this.store.loadInput(request.previousResponseId)) ?? [];
    }
    const input = this.openReasoning(resolveReferences(request.input, [...previousInput, ...previousOutput]), tenant);
    return {
      responseId: newResponseId(),
      tenant,
      createdAt: Math.floor(Date.now() / 1000),
      model,
      request: { ...request, input },
      history,
      requestId,
    };
  }

  /** Sync mode: run to the end and return the fold. */
  async complete(run: ResponseRun, signal: AbortSignal): Promise<ResponseObject> {
    const iterator = this.runner.run(run, signal);
    let step: IteratorResult<ResponseStreamEvent, RunResult>;
    try {
      while (!(step = await iterator.next()).done) {
        // The fold is kept by the runner's emitter; events need no handling here.
      }
    } catch (error) {
      throw toApiError(error);
    }
    await this.persist(run, step.value);
    return step.value.response;
  }

  /**
   * Stream mode. The opening lifecycle events are held back until the engine produces something,
   * so a failure before that (engine down, prompt too long) is still a plain JSON error.
   */
  private async stream(run: ResponseRun, reply: FastifyReply, signal: AbortSignal): Promise<void> {
    const writer = new SseWriter(reply, { keepAliveMs: 15_000 });
    const held: ResponseStreamEvent[] = [];
    const iterator = this.runner.run(run, signal);
    let step: IteratorResult<ResponseStreamEvent, RunResult>;
    try {
      while (!(step = await iterator.next()).done) {
        const event = step.value;
        if (!writer.headersSent && LIFECYCLE_START.has(event.type)) {
          held.push(event);
          continue;
        }
        for (const early of held.splice(0)) await writer.write(early.type, JSON.stringify(early));
        await writer.write(event.type, JSON.stringify(event));
      }
    } catch (error) {
      if (!writer.headersSent) throw toApiError(error);
      // The runner ends runs that fail after output with response.failed; reaching here is a bug.
      this.logger.error({ err: error, responseId: run.responseId }, 'stream failed after it started');
      writer.end();
      return;
    }
    writer.end();
    await this.persist(run, step.value);
  }

  /** Settings a harmony token engine cannot honour are a 400, never silently ignored. */
  private checkEngineCanHonour(request: ResponseRequest): void {
    if (this.engine.format !== 'harmony') {
      if (request.truncation === 'auto') {
        throw Errors.unsupportedValue('truncation', "'auto' needs the model's tokenizer, which chat-completions engines do not expose; use 'disabled'.");
      }
      return;
    }
    if (request.toolChoice !== 'auto' && request.toolChoice !== 'none') {
      throw Errors.unsupportedValue('tool_choice', "gpt-oss (harmony) engines only support 'auto' and 'none'.");
    }
    if (request.include.includes('message.output_text.logprobs') || request.topLogprobs > 0) {
      throw Errors.unsupportedValue(
        request.topLogprobs > 0 ? 'top_logprobs' : 'include',
        'token logprobs are not supported with gpt-oss (harmony) engines; they are with chat engines.',
      );
    }
  }

  /** Reasoning sent back as `encrypted_content` (stateless clients) is opened into plain `content`. */
  private openReasoning(input: InputItem[], tenant: string): InputItem[] {
    return input.map((item, index) => {
      if (item.type !== 'reasoning' || !item.encrypted_content) return item;
      const text = this.cipher.open(item.encrypted_content, tenant);
      if (text === undefined) {
        throw Errors.invalidValue(`input.${index}.encrypted_content`, 'it was not produced by this server for this caller, or it was altered');
      }
      return { ...item, content: [{ type: 'reasoning_text', text }], encrypted_content: null };
    });
  }

  /** Applies `include` to a stored Response (encrypted reasoning is made on demand). */
  private present(response: ResponseObject, include: readonly string[], tenant: string): ResponseObject {
    if (!include.includes('reasoning.encrypted_content')) return response;
    return {
      ...response,
      output: response.output.map((item) =>
        item.type === 'reasoning' && !item.encrypted_content
          ? { ...item, encrypted_content: this.cipher.seal((item.content ?? []).map((part) => part.text).join(''), tenant) }
          : item,
      ),
    };
  }

  private async persist(run: ResponseRun, result: RunResult): Promise<void> {
    if (!run.request.store) return;
    await this.store.save(
      { tenant: run.tenant, response: result.response },
      { input: toStoredInputItems(run.responseId, run.request.input), conversation: result.conversation },
    );
  }

  private async owned(id: string, tenant: string): Promise<{ tenant: string; response: ResponseObject }> {
    const stored = isResponseId(id) ? await this.store.load(id) : null;
    // Another tenant's response is indistinguishable from one that does not exist.
    if (!stored || stored.tenant !== tenant) throw Errors.notFound(`Response with id '${id}' not found.`, 'not_found', 'response_id');
    return stored;
  }
}

function toApiError(error: unknown): unknown {
  return error instanceof EngineError ? engineErrorToApi(error) : error;
}

/** `item_reference` inputs become the items they name (from the previous response's input or output). */
function resolveReferences(input: readonly InputItem[], known: ReadonlyArray<StoredInputItem | OutputItem>): InputItem[] {
  if (!input.some((item) => item.type === 'item_reference')) return [...input];
  const byId = new Map(known.map((item) => [item.id, item]));
  return input.map((item, index) => {
    if (item.type !== 'item_reference') return item;
    const found = byId.get(item.id);
    if (!found) {
      throw Errors.invalidValue(`input.${index}.id`, `no item with id '${item.id}' in the previous response's input or output`);
    }
    return found as InputItem;
  });
}
