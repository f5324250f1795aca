import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { tenantOf } from './auth.guard';

/** The caller's tenant (set by AuthGuard). */
export const Tenant = createParamDecorator((_data: unknown, context: ExecutionContext): string =>
  tenantOf(context.switchToHttp().getRequest<FastifyRequest>()),
);
