import type { ItemStatus, Logprob, OutputItem, OutputTextContent, ReasoningTextContent, RefusalContent } from './items';
import type { ResponseObject } from './response';

/**
 * The stream events the server emits (OpenAI's names). `sequence_number` is assigned by the one
 * producer of a response's events (OutputEmitter), starting at 0 with `response.created`.
 */
type Lifecycle<T extends string> = { type: T; sequence_number: number; response: ResponseObject };

export type ContentPart = OutputTextContent | RefusalContent | ReasoningTextContent;

export type ResponseStreamEvent =
  | Lifecycle<'response.created'>
  | Lifecycle<'response.queued'>
  | Lifecycle<'response.in_progress'>
  | Lifecycle<'response.completed'>
  | Lifecycle<'response.incomplete'>
  | Lifecycle<'response.failed'>
  | { type: 'response.output_item.added'; sequence_number: number; output_index: number; item: OutputItem }
  | { type: 'response.output_item.done'; sequence_number: number; output_index: number; item: OutputItem }
  | {
      type: 'response.content_part.added' | 'response.content_part.done';
      sequence_number: number;
      item_id: string;
      output_index: number;
      content_index: number;
      part: ContentPart;
    }
  | {
      type: 'response.output_text.delta';
      sequence_number: number;
      item_id: string;
      output_index: number;
      content_index: number;
      delta: string;
      logprobs: Logprob[];
    }
  | {
      type: 'response.output_text.done';
      sequence_number: number;
      item_id: string;
      output_index: number;
      content_index: number;
      text: string;
      logprobs: Logprob[];
    }
  | {
      type: 'response.refusal.delta';
      sequence_number: number;
      item_id: string;
      output_index: number;
      content_index: number;
      delta: string;
    }
  | {
      type: 'response.refusal.done';
      sequence_number: number;
      item_id: string;
      output_index: number;
      content_index: number;
      refusal: string;
    }
  | {
      type: 'response.reasoning_text.delta';
      sequence_number: number;
      item_id: string;
      output_index: number;
      content_index: number;
      delta: string;
    }
  | {
      type: 'response.reasoning_text.done';
      sequence_number: number;
      item_id: string;
      output_index: number;
      content_index: number;
      text: string;
    }
  | {
      type: 'response.function_call_arguments.delta';
      sequence_number: number;
      item_id: string;
      output_index: number;
      delta: string;
    }
  | {
      type: 'response.function_call_arguments.done';
      sequence_number: number;
      item_id: string;
      output_index: number;
      name: string;
      arguments: string;
    }
  | ErrorEvent;

/**
 * The stream's `error` event carries the error both flat (OpenAI's spec and SDK types) and nested
 * (what OpenAI sends and Open Responses requires): contract §0.1.
 */
export interface ErrorEvent {
  type: 'error';
  sequence_number: number;
  code: string | null;
  message: string;
  param: string | null;
  error: { type: string; code: string | null; message: string; param: string | null };
}

export type ResponseEventType = ResponseStreamEvent['type'];

/** An event before the producer numbers it. */
export type UnsequencedEvent = ResponseStreamEvent extends infer E
  ? E extends { sequence_number: number }
    ? Omit<E, 'sequence_number'>
    : never
  : never;

export const TERMINAL_EVENT_TYPES: ReadonlySet<ResponseEventType> = new Set([
  'response.completed',
  'response.incomplete',
  'response.failed',
  'error',
]);

export type { ItemStatus };
