import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AppConfig } from '../../config/app-config';
import { ApiError } from '../errors/api-error';

/** The tenant of a request, set by AuthGuard. */
export const DEFAULT_TENANT = 'default';
const TENANT = Symbol('tenant');
type TenantRequest = FastifyRequest & { [TENANT]?: string };

export function tenantOf(request: FastifyRequest): string {
  return (request as TenantRequest)[TENANT] ?? DEFAULT_TENANT;
}

/**
 * `Authorization: Bearer <key>` → tenant, from API_KEYS. With no keys configured every request
 * belongs to one default tenant (and startup logs a warning).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(private readonly config: AppConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<TenantRequest>();
    if (this.config.apiKeys.size === 0) {
      request[TENANT] = DEFAULT_TENANT;
      return true;
    }
    const header = request.headers.authorization;
    if (typeof header !== 'string' || !/^Bearer\s+\S/i.test(header)) {
      throw unauthorized(
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
        'missing_api_key',
      );
    }
    const key = header.replace(/^Bearer\s+/i, '').trim();
    const tenant = this.config.apiKeys.get(key);
    if (tenant === undefined) {
      throw unauthorized(`Incorrect API key provided: ${redact(key)}.`, 'invalid_api_key');
    }
    request[TENANT] = tenant;
    return true;
  }
}

function unauthorized(message: string, code: string): ApiError {
  return new ApiError(401, message, 'invalid_request_error', code, null, { 'www-authenticate': 'Bearer' });
}

function redact(key: string): string {
  return key.length <= 8 ? '****' : `${key.slice(0, 3)}****${key.slice(-4)}`;
}
