import { derivedId } from '../common/ids';
import { initialResponse } from './initial-response';
import { CANCELLED_CODE, ResponseAccumulator } from './response-accumulator';
import type { ResponseRun } from './response-run';
import type { ContentPart, ResponseStreamEvent } from './types/events';
import type { ItemStatus, Logprob, OutputItem } from './types/items';
import type { ResponseError, ResponseObject, ResponseUsage } from './types/response';

export type StreamedItemKind = 'reasoning' | 'message' | 'function_call';

export type Outcome =
  | { status: 'completed' }
  | { status: 'incomplete'; reason: 'max_output_tokens' | 'content_filter' }
  | { status: 'failed'; error: ResponseError }
  | { status: 'cancelled' };

interface OpenItem {
  kind: StreamedItemKind;
  outputIndex: number;
  id: string;
  /** Text streamed so far (message text, reasoning text, or call arguments). */
  text: string;
  logprobs: Logprob[];
  name: string;
  callId: string;
}

/**
 * The single producer of a response's events (style.md, point 7). It owns `sequence_number`,
 * `output_index`, `content_index` and item ids, emits events in the contract's order, and folds
 * each one into a ResponseAccumulator, whose state is the Response that lifecycle events carry.
 * Each method returns the events it produced, in order.
 */
export class OutputEmitter {
  private sequence = 0;
  private readonly accumulator = new ResponseAccumulator();
  private current?: OpenItem;
  private finished = false;

  /** `seal`: makes reasoning items' `encrypted_content` (include `reasoning.encrypted_content`). */
  constructor(
    private readonly run: ResponseRun,
    private readonly seal?: (text: string) => string,
  ) {}

  /** The fold so far. */
  get response(): ResponseObject {
    return this.accumulator.response;
  }

  get isFinished(): boolean {
    return this.finished;
  }

  get openItem(): Readonly<{ kind: StreamedItemKind; outputIndex: number; text: string }> | undefined {
    return this.current;
  }

  /**
   * A foreground response starts with `response.created` and `response.in_progress`. A background
   * one was announced by the API (`created` with status queued, then `queued`: see
   * `queuedEvents`), so its worker continues the same log at sequence 2 with `in_progress`.
   */
  start(): ResponseStreamEvent[] {
    const response = initialResponse(this.run, 'in_progress');
    if (this.run.request.background) {
      this.sequence = QUEUED_EVENT_COUNT;
      return [this.emit({ type: 'response.in_progress', sequence_number: 0, response })];
    }
    return [
      this.emit({ type: 'response.created', sequence_number: 0, response }),
      this.emit({ type: 'response.in_progress', sequence_number: 0, response }),
    ];
  }

  /** Opens an output item (and its content part, for text items). Closes an open item first. */
  beginItem(kind: StreamedItemKind, call?: { name: string; callId?: string }): ResponseStreamEvent[] {
    const events = this.current ? this.endItem('completed') : [];
    const outputIndex = this.response.output.length;
    const id = derivedId(ID_KIND[kind], this.run.responseId, 'output', outputIndex);
    const open: OpenItem = {
      kind,
      outputIndex,
      id,
      text: '',
      logprobs: [],
      name: call?.name ?? '',
      callId: kind === 'function_call' ? (call?.callId ?? derivedId('call', this.run.responseId, 'output', outputIndex)) : '',
    };
    this.current = open;
    events.push(this.emit({ type: 'response.output_item.added', sequence_number: 0, output_index: outputIndex, item: this.itemSnapshot(open, 'in_progress') }));
    if (kind !== 'function_call') {
      events.push(
        this.emit({
          type: 'response.content_part.added',
          sequence_number: 0,
          item_id: id,
          output_index: outputIndex,
          content_index: 0,
          part: emptyPart(kind),
        }),
      );
    }
    return events;
  }

  /** Appends text to the open item: the one hot-path call (one event per engine chunk). */
  delta(text: string, logprobs?: Logprob[]): ResponseStreamEvent {
    const open = this.current;
    if (!open) throw new Error('delta with no open item');
    open.text += text;
    const base = { sequence_number: 0, item_id: open.id, output_index: open.outputIndex };
    switch (open.kind) {
      case 'message':
        if (logprobs?.length) open.logprobs.push(...logprobs);
        return this.emit({ type: 'response.output_text.delta', ...base, content_index: 0, delta: text, logprobs: logprobs ?? [] });
      case 'reasoning':
        return this.emit({ type: 'response.reasoning_text.delta', ...base, content_index: 0, delta: text });
      case 'function_call':
        return this.emit({ type: 'response.function_call_arguments.delta', ...base, delta: text });
    }
  }

  /**
   * Closes the open item with the given status (`incomplete` when generation was cut short).
   * `finalText`, when given, is the item's authoritative text: joined deltas can differ from it
   * after invalid UTF-8 (harmony-spec §6.5), and the done events must carry the real text.
   */
  endItem(status: ItemStatus, finalText?: string): ResponseStreamEvent[] {
    const open = this.current;
    if (!open) return [];
    this.current = undefined;
    if (finalText !== undefined) open.text = finalText;
    const events: ResponseStreamEvent[] = [];
    const base = { sequence_number: 0, item_id: open.id, output_index: open.outputIndex };
    if (open.kind === 'message') {
      events.push(this.emit({ type: 'response.output_text.done', ...base, content_index: 0, text: open.text, logprobs: open.logprobs }));
    } else if (open.kind === 'reasoning') {
      events.push(this.emit({ type: 'response.reasoning_text.done', ...base, content_index: 0, text: open.text }));
    } else {
      events.push(this.emit({ type: 'response.function_call_arguments.done', ...base, name: open.name, arguments: open.text }));
    }
    if (open.kind !== 'function_call') {
      events.push(this.emit({ type: 'response.content_part.done', ...base, content_index: 0, part: filledPart(open) }));
    }
    events.push(this.emit({ type: 'response.output_item.done', sequence_number: 0, output_index: open.outputIndex, item: this.itemSnapshot(open, status) }));
    return events;
  }

  /**
   * Ends the response: closes an open item (as `incomplete` unless completed), then the terminal
   * event. A failure is announced by an `error` event first (contract §4.4).
   */
  finish(outcome: Outcome, usage: ResponseUsage | null): ResponseStreamEvent[] {
    if (this.finished) throw new Error('response already finished');
    this.finished = true;
    const events = this.endItem(outcome.status === 'completed' ? 'completed' : 'incomplete');
    if (outcome.status === 'cancelled') {
      // There is no response.cancelled event: the terminal event of a cancelled response is an
      // `error` with code response_cancelled (design.md, "Events"), which the fold understands.
      const message = 'The response was cancelled.';
      events.push(
        this.emit({
          type: 'error',
          sequence_number: 0,
          code: CANCELLED_CODE,
          message,
          param: null,
          error: { type: 'invalid_request_error', code: CANCELLED_CODE, message, param: null },
        }),
      );
      this.accumulator.setUsage(usage);
      return events;
    }
    const now = Math.floor(Date.now() / 1000);
    const response: ResponseObject = {
      ...this.response,
      status: outcome.status,
      completed_at: outcome.status === 'completed' ? now : null,
      incomplete_details: outcome.status === 'incomplete' ? { reason: outcome.reason } : null,
      error: outcome.status === 'failed' ? outcome.error : null,
      usage,
    };
    if (outcome.status === 'failed') {
      const { code, message } = outcome.error;
      events.push(
        this.emit({
          type: 'error',
          sequence_number: 0,
          code,
          message,
          param: null,
          error: { type: code === 'server_error' ? 'server_error' : 'invalid_request_error', code, message, param: null },
        }),
      );
    }
    const type = outcome.status === 'completed' ? 'response.completed' : outcome.status === 'incomplete' ? 'response.incomplete' : 'response.failed';
    events.push(this.emit({ type, sequence_number: 0, response }));
    return events;
  }

  private emit<E extends ResponseStreamEvent>(event: E): E {
    event.sequence_number = this.sequence++;
    this.accumulator.apply(event);
    return event;
  }

  private itemSnapshot(open: OpenItem, status: ItemStatus): OutputItem {
    switch (open.kind) {
      case 'message':
        return {
          type: 'message',
          id: open.id,
          role: 'assistant',
          status,
          content: status === 'in_progress' ? [] : [filledPart(open) as { type: 'output_text'; text: string; annotations: []; logprobs: Logprob[] }],
        };
      case 'reasoning':
        return {
          type: 'reasoning',
          id: open.id,
          summary: [],
          content: status === 'in_progress' ? [] : [{ type: 'reasoning_text', text: open.text }],
          ...(this.seal && status !== 'in_progress' ? { encrypted_content: this.seal(open.text) } : {}),
          status,
        };
      case 'function_call':
        return { type: 'function_call', id: open.id, call_id: open.callId, name: open.name, arguments: open.text, status };
    }
  }
}

const ID_KIND = { reasoning: 'rs', message: 'msg', function_call: 'fc' } as const;

/** How many events announce a background response before its worker starts. */
export const QUEUED_EVENT_COUNT = 2;

/** The first events of a background response, written when it is enqueued. */
export function queuedEvents(run: ResponseRun): ResponseStreamEvent[] {
  const response = initialResponse(run, 'queued');
  return [
    { type: 'response.created', sequence_number: 0, response },
    { type: 'response.queued', sequence_number: 1, response },
  ];
}

/** The terminal event of a background response cancelled before any worker took it. */
export function cancelledWhileQueuedEvent(sequence: number): ResponseStreamEvent {
  const message = 'The response was cancelled.';
  return {
    type: 'error',
    sequence_number: sequence,
    code: CANCELLED_CODE,
    message,
    param: null,
    error: { type: 'invalid_request_error', code: CANCELLED_CODE, message, param: null },
  };
}

function emptyPart(kind: 'message' | 'reasoning'): ContentPart {
  return kind === 'message' ? { type: 'output_text', text: '', annotations: [], logprobs: [] } : { type: 'reasoning_text', text: '' };
}

function filledPart(open: OpenItem): ContentPart {
  return open.kind === 'message'
    ? { type: 'output_text', text: open.text, annotations: [], logprobs: open.logprobs }
    : { type: 'reasoning_text', text: open.text };
}
