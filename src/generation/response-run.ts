import type { ConversationRecord } from '../store/response-store';
import type { ResponseRequest } from './response-request';

/**
 * Everything the runner needs to produce one response, built by ResponsesService (foreground) or
 * read back from Redis by the worker (background): the normalised request, the server-assigned
 * id, and the history resolved from `previous_response_id`.
 */
export interface ResponseRun {
  responseId: string;
  tenant: string;
  /** Unix seconds. */
  createdAt: number;
  /** The served model name echoed in the Response. */
  model: string;
  request: ResponseRequest;
  /** The engine-level conversation of the previous response in the chain, if any. */
  history: ConversationRecord | null;
  /** The engine request id (for engine log correlation). */
  requestId?: string;
}
