/**
 * The OpenAI error envelope and the service's error catalogue. Every error a client sees is built
 * here, so status, `type` and `code` stay consistent (style.md, point 9).
 */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'rate_limit_error'
  | 'server_error';

export interface ErrorBody {
  error: { message: string; type: ErrorType; param: string | null; code: string | null };
}

export class ApiError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  readonly code: string | null;
  readonly param: string | null;
  /** Extra response headers, e.g. Retry-After on 429. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    message: string,
    type: ErrorType,
    code: string | null,
    param: string | null = null,
    headers: Readonly<Record<string, string>> = {},
  ) {
    // A client error's stack says nothing useful and capturing it is most of its cost.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'ApiError';
    this.status = status;
    this.type = type;
    this.code = code;
    this.param = param;
    this.headers = headers;
  }

  toBody(): ErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

const invalid = (status: number, message: string, code: string | null, param: string | null = null): ApiError =>
  new ApiError(status, message, 'invalid_request_error', code, param);

export const Errors = {
  unknownParameter: (param: string) => invalid(400, `Unknown parameter: '${param}'.`, 'unknown_parameter', param),
  missingParameter: (param: string) =>
    invalid(400, `Missing required parameter: '${param}'.`, 'missing_required_parameter', param),
  invalidType: (param: string, detail: string) =>
    invalid(400, `Invalid type for '${param}': ${detail}.`, 'invalid_type', param),
  invalidValue: (param: string | null, detail: string) =>
    invalid(400, param ? `Invalid value for '${param}': ${detail}.` : `Invalid value: ${detail}.`, 'invalid_value', param),
  unsupportedParameter: (param: string, detail: string) =>
    invalid(400, `Unsupported parameter: '${param}': ${detail}`, 'unsupported_parameter', param),
  unsupportedValue: (param: string, detail: string) =>
    invalid(400, `Unsupported value for '${param}': ${detail}`, 'unsupported_value', param),
  invalidJson: (detail: string) =>
    invalid(400, `We could not parse the JSON body of your request: ${detail}. The API expects a JSON payload.`, 'invalid_json'),
  emptyBody: () => invalid(400, 'The request body is empty; the API expects a JSON payload.', 'invalid_json'),
  unsupportedMediaType: (contentType: string | undefined) =>
    invalid(
      415,
      `Unsupported Content-Type ${contentType ? `'${contentType}'` : '(none)'}; send 'application/json'.`,
      'unsupported_media_type',
    ),
  bodyTooLarge: (limitBytes: number) =>
    invalid(413, `The request body exceeds the limit of ${limitBytes} bytes.`, 'request_too_large'),
  invalidUrl: (method: string, url: string) => invalid(404, `Invalid URL (${method} ${url})`, 'invalid_url'),
  notFound: (message: string, code: string | null = 'not_found', param: string | null = null) =>
    invalid(404, message, code, param),
  methodNotAllowed: (method: string, url: string) =>
    invalid(405, `Method ${method} is not allowed on ${url}.`, 'method_not_allowed'),
  internal: () =>
    new ApiError(500, 'The server had an error while processing your request. Sorry about that!', 'server_error', 'server_error'),
  tooManyQueued: (limit: number, retryAfterSeconds: number) =>
    new ApiError(
      429,
      `Too many background responses are waiting for this API key (limit ${limit}); retry after ${retryAfterSeconds} s.`,
      'rate_limit_error',
      'rate_limit_exceeded',
      'background',
      { 'retry-after': String(retryAfterSeconds) },
    ),
  unavailable: (message: string) => new ApiError(503, message, 'server_error', 'service_unavailable'),
} as const;
