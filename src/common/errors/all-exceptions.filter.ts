import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, Errors } from './api-error';

interface FastifyLikeError {
  code?: string;
  statusCode?: number;
  message: string;
}

/**
 * The one place where thrown things become HTTP errors: ApiErrors as they are, Fastify's own
 * errors (body parsing, content type, size) and Nest's HTTP exceptions mapped to the catalogue,
 * anything else a 500 whose details stay in the log.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(private readonly bodyLimitBytes: number) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const error = this.toApiError(exception, request);
    if (error.status >= 500) {
      this.logger.error({ err: exception, reqId: request?.id }, `Request failed: ${describe(exception)}`);
    }
    sendError(reply, error);
  }

  toApiError(exception: unknown, request: FastifyRequest | undefined): ApiError {
    if (exception instanceof ApiError) return exception;
    // Nest's Fastify adapter wraps Fastify's own errors (body parsing) in an HttpException.
    const fastify = (exception instanceof HttpException ? exception.cause : exception) as FastifyLikeError | undefined;
    if (typeof fastify?.code === 'string' && fastify.code.startsWith('FST_')) return this.fromFastify(fastify, request);
    if (exception instanceof HttpException) return this.fromHttpException(exception, request);
    // Fastify's JSON parser throws a SyntaxError tagged with statusCode 400.
    if (exception instanceof SyntaxError && fastify?.statusCode === 400) return Errors.invalidJson(exception.message);
    return Errors.internal();
  }

  private fromFastify(error: FastifyLikeError, request: FastifyRequest | undefined): ApiError {
    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return Errors.unsupportedMediaType(request?.headers['content-type']);
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return Errors.bodyTooLarge(this.bodyLimitBytes);
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return Errors.emptyBody();
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return Errors.invalidJson(error.message);
      default:
        if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
          return new ApiError(error.statusCode, error.message, 'invalid_request_error', 'invalid_request');
        }
        return Errors.internal();
    }
  }

  private fromHttpException(exception: HttpException, request: FastifyRequest | undefined): ApiError {
    const status = exception.getStatus();
    if (status === 404 && request) return Errors.invalidUrl(request.method, request.url);
    if (status === 413) return Errors.bodyTooLarge(this.bodyLimitBytes);
    if (status === 415) return Errors.unsupportedMediaType(request?.headers['content-type']);
    if (status >= 500) return Errors.internal();
    return new ApiError(status, exception.message, status === 401 ? 'authentication_error' : 'invalid_request_error', null);
  }
}

export function sendError(reply: FastifyReply, error: ApiError): void {
  if (reply.sent || reply.raw.headersSent) {
    // Headers are out (a stream had started): the stream's own error event is the only channel left.
    reply.raw.destroy();
    return;
  }
  void reply.status(error.status).headers(error.headers).send(error.toBody());
}

function describe(exception: unknown): string {
  return exception instanceof Error ? `${exception.name}: ${exception.message}` : String(exception);
}
