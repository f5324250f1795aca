import type { ResponseStreamEvent } from './types/events';
import type { FunctionCallItem, OutputItem, OutputMessageItem, OutputTextContent, ReasoningItem, RefusalContent } from './types/items';
import type { ResponseObject } from './types/response';

/** The `error` event code that ends a cancelled response (there is no response.cancelled event). */
export const CANCELLED_CODE = 'response_cancelled';

/**
 * Folds a response's events into the Response object. This is the only way a final Response is
 * built (design.md, "One path for every mode"): sync replies, stored snapshots and stream clients
 * all see the fold of the same events. Items and parts are copied on `added`, so later mutation
 * of the fold never changes an event that was already sent.
 */
export class ResponseAccumulator {
  private current?: ResponseObject;

  get response(): ResponseObject {
    if (!this.current) throw new Error('no response.created event folded yet');
    return this.current;
  }

  get started(): boolean {
    return this.current !== undefined;
  }

  apply(event: ResponseStreamEvent): void {
    switch (event.type) {
      case 'response.created':
      case 'response.queued':
      case 'response.in_progress':
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed':
        this.current = structuredClone(event.response);
        return;
      case 'response.output_item.added':
      case 'response.output_item.done':
        this.response.output[event.output_index] = structuredClone(event.item);
        return;
      case 'response.content_part.added':
      case 'response.content_part.done': {
        const item = this.item(event.output_index);
        if (item.type === 'message') {
          if (event.part.type === 'reasoning_text') throw new Error('reasoning_text part on a message item');
          item.content[event.content_index] = { ...event.part } as OutputTextContent | RefusalContent;
        } else if (item.type === 'reasoning') {
          if (event.part.type !== 'reasoning_text') throw new Error(`${event.part.type} part on a reasoning item`);
          (item.content ??= [])[event.content_index] = { ...event.part };
        }
        return;
      }
      case 'response.output_text.delta': {
        const part = this.textPart(event.output_index, event.content_index);
        part.text += event.delta;
        if (event.logprobs.length > 0) part.logprobs.push(...event.logprobs);
        return;
      }
      case 'response.output_text.done':
        this.textPart(event.output_index, event.content_index).text = event.text;
        return;
      case 'response.refusal.delta':
        this.refusalPart(event.output_index, event.content_index).refusal += event.delta;
        return;
      case 'response.refusal.done':
        this.refusalPart(event.output_index, event.content_index).refusal = event.refusal;
        return;
      case 'response.reasoning_text.delta':
      case 'response.reasoning_text.done': {
        const item = this.itemOf<ReasoningItem>(event.output_index, 'reasoning');
        const part = item.content?.[event.content_index];
        if (!part) throw new Error(`no reasoning part ${event.content_index} at output ${event.output_index}`);
        part.text = event.type === 'response.reasoning_text.delta' ? part.text + event.delta : event.text;
        return;
      }
      case 'response.function_call_arguments.delta':
        this.itemOf<FunctionCallItem>(event.output_index, 'function_call').arguments += event.delta;
        return;
      case 'response.function_call_arguments.done':
        this.itemOf<FunctionCallItem>(event.output_index, 'function_call').arguments = event.arguments;
        return;
      case 'error':
        if (event.code === CANCELLED_CODE) this.response.status = 'cancelled';
        return;
    }
  }

  /** A cancelled response has no lifecycle event to carry its usage. */
  setUsage(usage: ResponseObject['usage']): void {
    this.response.usage = usage;
  }

  private item(index: number): OutputItem {
    const item = this.response.output[index];
    if (!item) throw new Error(`no output item at index ${index}`);
    return item;
  }

  private itemOf<T extends OutputItem>(index: number, type: T['type']): T {
    const item = this.item(index);
    if (item.type !== type) throw new Error(`output ${index} is a ${item.type}, not a ${type}`);
    return item as T;
  }

  private textPart(index: number, contentIndex: number): OutputTextContent {
    const part = this.itemOf<OutputMessageItem>(index, 'message').content[contentIndex];
    if (part?.type !== 'output_text') throw new Error(`no output_text part ${contentIndex} at output ${index}`);
    return part;
  }

  private refusalPart(index: number, contentIndex: number): RefusalContent {
    const part = this.itemOf<OutputMessageItem>(index, 'message').content[contentIndex];
    if (part?.type !== 'refusal') throw new Error(`no refusal part ${contentIndex} at output ${index}`);
    return part;
  }
}
