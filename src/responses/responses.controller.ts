import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { AuthGuard } from '../common/auth/auth.guard';
import { Tenant } from '../common/auth/tenant.decorator';
import type { StoredInputItem } from '../generation/types/items';
import type { ResponseObject } from '../generation/types/response';
import type { ItemPage } from './input-items';
import { parseCreateRequest } from './request/create-request';
import { parseInputItemsQuery, parseRetrieveQuery } from './request/query-params';
import { ResponsesService } from './responses.service';

/**
 * `/v1/responses…`: one line per handler; the service owns every decision. Bodies and queries
 * are parsed by the request/ parsers (exact JSON paths in errors), not by the global pipe.
 */
@Controller('v1/responses')
@UseGuards(AuthGuard)
export class ResponsesController {
  constructor(private readonly responses: ResponsesService) {}

  @Post()
  async create(@Body() body: unknown, @Tenant() tenant: string, @Res() reply: FastifyReply): Promise<void> {
    await this.responses.create(parseCreateRequest(body), tenant, reply);
  }

  @Post('input_tokens')
  @HttpCode(200)
  inputTokens(@Body() body: unknown, @Tenant() tenant: string): Promise<{ object: 'response.input_tokens'; input_tokens: number }> {
    return this.responses.countInputTokens(body, tenant);
  }

  @Get(':id')
  async retrieve(@Param('id') id: string, @Query() query: Record<string, unknown>, @Tenant() tenant: string, @Res() reply: FastifyReply): Promise<void> {
    await this.responses.retrieve(id, tenant, parseRetrieveQuery(query), reply);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  cancel(@Param('id') id: string, @Tenant() tenant: string): Promise<ResponseObject> {
    return this.responses.cancel(id, tenant);
  }

  @Delete(':id')
  @HttpCode(200)
  delete(@Param('id') id: string, @Tenant() tenant: string): Promise<{ id: string; object: 'response'; deleted: true }> {
    return this.responses.delete(id, tenant);
  }

  @Get(':id/input_items')
  inputItems(@Param('id') id: string, @Query() query: Record<string, unknown>, @Tenant() tenant: string): Promise<ItemPage<StoredInputItem>> {
    return this.responses.listInputItems(id, tenant, parseInputItemsQuery(query));
  }
}
