/**
 * Wire shapes of the Responses API items (snake_case, as on the wire). Only the item kinds the
 * server produces or accepts today are here; built-in tool items arrive with the tools module.
 */
export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

export interface TopLogprob {
  token: string;
  logprob: number;
  bytes: number[];
}

export interface Logprob extends TopLogprob {
  top_logprobs: TopLogprob[];
}

export interface UrlCitation {
  type: 'url_citation';
  url: string;
  title: string;
  start_index: number;
  end_index: number;
}

export type Annotation = UrlCitation;

export interface OutputTextContent {
  type: 'output_text';
  text: string;
  annotations: Annotation[];
  logprobs: Logprob[];
}

export interface RefusalContent {
  type: 'refusal';
  refusal: string;
}

export interface ReasoningTextContent {
  type: 'reasoning_text';
  text: string;
}

export interface SummaryTextContent {
  type: 'summary_text';
  text: string;
}

export interface InputTextContent {
  type: 'input_text';
  text: string;
}

export interface OutputMessageItem {
  type: 'message';
  id: string;
  role: 'assistant';
  status: ItemStatus;
  content: Array<OutputTextContent | RefusalContent>;
}

export interface ReasoningItem {
  type: 'reasoning';
  id: string;
  summary: SummaryTextContent[];
  content?: ReasoningTextContent[];
  encrypted_content?: string | null;
  status?: ItemStatus;
}

export interface FunctionCallItem {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: ItemStatus;
}

export type OutputItem = OutputMessageItem | ReasoningItem | FunctionCallItem;
export type OutputItemType = OutputItem['type'];

// ---- input items (as accepted in a request, after normalisation) ----

export type MessageRole = 'user' | 'assistant' | 'system' | 'developer';

export type InputContent = InputTextContent | OutputTextContent | RefusalContent;

export interface InputMessageItem {
  type: 'message';
  id?: string;
  role: MessageRole;
  content: InputContent[];
  status?: ItemStatus;
}

export interface FunctionCallInputItem {
  type: 'function_call';
  id?: string;
  call_id: string;
  name: string;
  arguments: string;
  status?: ItemStatus;
}

export interface FunctionCallOutputItem {
  type: 'function_call_output';
  id?: string;
  call_id: string;
  output: string | InputTextContent[];
  status?: ItemStatus;
}

export interface ReasoningInputItem {
  type: 'reasoning';
  id?: string;
  summary: SummaryTextContent[];
  content?: ReasoningTextContent[];
  encrypted_content?: string | null;
  status?: ItemStatus;
}

export interface ItemReference {
  type: 'item_reference';
  id: string;
}

export type InputItem =
  | InputMessageItem
  | FunctionCallInputItem
  | FunctionCallOutputItem
  | ReasoningInputItem
  | ItemReference;

/** Input items as stored and listed by `GET /v1/responses/{id}/input_items`: every item has an id. */
export type StoredInputItem =
  | (InputMessageItem & { id: string; status: ItemStatus })
  | (FunctionCallInputItem & { id: string; status: ItemStatus })
  | (FunctionCallOutputItem & { id: string; status: ItemStatus })
  | (ReasoningInputItem & { id: string });
