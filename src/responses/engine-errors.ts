import { ApiError } from '../common/errors/api-error';
import type { EngineError } from '../engine/engine-error';

/** An engine failure that happened before any output, as the HTTP error the client gets. */
export function engineErrorToApi(error: EngineError): ApiError {
  switch (error.kind) {
    case 'context_length_exceeded':
      return new ApiError(400, error.message, 'invalid_request_error', 'context_length_exceeded', 'input');
    case 'bad_request':
      return new ApiError(400, error.message, 'invalid_request_error', 'engine_rejected_request');
    case 'unavailable':
      return new ApiError(503, `The inference engine is unavailable: ${error.message}`, 'server_error', 'engine_unavailable', null, { 'retry-after': '1' });
    case 'timeout':
      return new ApiError(504, `The inference engine timed out: ${error.message}`, 'server_error', 'engine_timeout');
    case 'aborted':
      return new ApiError(499, 'The request was aborted.', 'invalid_request_error', 'request_aborted');
    case 'server_error':
    case 'protocol':
      return new ApiError(502, `The inference engine failed: ${error.message}`, 'server_error', 'engine_error');
  }
}
