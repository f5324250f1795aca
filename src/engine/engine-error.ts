/**
 * Every way an engine call can fail, as one typed error. The gateway maps it to an OpenAI-shaped
 * error before streaming starts, or to `response.failed` after; engines only classify.
 */
export type EngineErrorKind =
  | 'unavailable'
  | 'bad_request'
  | 'context_length_exceeded'
  | 'server_error'
  | 'timeout'
  | 'protocol'
  | 'aborted';

/** The HTTP status the gateway should answer with for each kind. */
export const ENGINE_ERROR_STATUS: Readonly<Record<EngineErrorKind, number>> = {
  unavailable: 503,
  bad_request: 400,
  context_length_exceeded: 400,
  server_error: 502,
  timeout: 504,
  protocol: 502,
  // nginx's "client closed request": the caller went away, so nobody normally reads this status.
  aborted: 499,
};

export interface EngineErrorDetails {
  /** The engine's own HTTP status, when the failure was an HTTP error answer. */
  engineStatus?: number;
  cause?: unknown;
}

export class EngineError extends Error {
  readonly status: number;
  readonly engineStatus?: number;

  constructor(
    readonly kind: EngineErrorKind,
    message: string,
    details: EngineErrorDetails = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'EngineError';
    this.status = ENGINE_ERROR_STATUS[kind];
    if (details.engineStatus !== undefined) this.engineStatus = details.engineStatus;
  }

  /** Only failures that happen before the engine produced anything may be retried. */
  get retryable(): boolean {
    return this.kind === 'unavailable';
  }
}

export function isEngineError(error: unknown): error is EngineError {
  return error instanceof EngineError;
}

// vLLM: "This model's maximum context length is N tokens…", "…exceeds the max_model_len M…";
// SGLang/TensorRT-LLM phrase it as "context length" / "input is too long".
const CONTEXT_LENGTH_PATTERN = /maximum context length|max_model_len|context length|context window|(?:prompt|input) is too long/i;

export function looksLikeContextLengthError(message: string): boolean {
  return CONTEXT_LENGTH_PATTERN.test(message);
}

/** Classifies an engine's HTTP error answer (status + the message it gave). */
export function engineErrorFromStatus(status: number, engineMessage: string, what: string): EngineError {
  const details = { engineStatus: status };
  const said = engineMessage ? `: ${engineMessage}` : '';
  if ((status === 400 || status === 413 || status === 422) && looksLikeContextLengthError(engineMessage)) {
    return new EngineError('context_length_exceeded', engineMessage || `${what} rejected the prompt as too long`, details);
  }
  if (status === 400 || status === 422) {
    return new EngineError('bad_request', `${what} rejected the request (HTTP ${status})${said}`, details);
  }
  if (status === 413) return new EngineError('bad_request', `${what} rejected the request as too large${said}`, details);
  if (status === 408 || status === 504) {
    return new EngineError('timeout', `${what} timed out (HTTP ${status})${said}`, details);
  }
  if (status === 429 || status === 503) {
    return new EngineError('unavailable', `${what} is overloaded or starting (HTTP ${status})${said}`, details);
  }
  // 401/403/404 mean our deployment is wrong (key, URL or model name), not the client's request.
  return new EngineError('server_error', `${what} answered HTTP ${status}${said}`, details);
}

/** Pulls the message out of an engine's error body: OpenAI `{error:{message}}` or vLLM's flat form. */
export function engineErrorMessage(body: string): string {
  const trimmed = body.trim();
  if (trimmed === '') return '';
  try {
    const parsed: unknown = JSON.parse(trimmed);
    const message = messageOf(parsed);
    if (message !== undefined) return message;
  } catch {
    // not JSON: fall through to the raw text
  }
  return trimmed.length > 500 ? `${trimmed.slice(0, 500)}…` : trimmed;
}

function messageOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.message === 'string') return record.message;
  if (typeof record.error === 'string') return record.error;
  if (typeof record.detail === 'string') return record.detail;
  return messageOf(record.error);
}
