import { Controller, Get, Inject, Param, UseGuards } from '@nestjs/common';
import { AuthGuard } from '../common/auth/auth.guard';
import { Errors } from '../common/errors/api-error';
import { ENGINE, type ConfiguredEngine } from '../engine/engine.module';

interface ModelObject {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
}

const STARTED = Math.floor(Date.now() / 1000);

/** `GET /v1/models`: the one model this gateway serves (its engine's). */
@Controller('v1/models')
@UseGuards(AuthGuard)
export class ModelsController {
  constructor(@Inject(ENGINE) private readonly engine: ConfiguredEngine) {}

  @Get()
  async list(): Promise<{ object: 'list'; data: ModelObject[] }> {
    return { object: 'list', data: [await this.model()] };
  }

  @Get(':model')
  async retrieve(@Param('model') id: string): Promise<ModelObject> {
    const model = await this.model();
    if (model.id !== id) throw Errors.notFound(`The model '${id}' does not exist.`, 'model_not_found', 'model');
    return model;
  }

  private async model(): Promise<ModelObject> {
    return { id: await this.engine.engine.modelId(), object: 'model', created: STARTED, owned_by: 'responses-gateway' };
  }
}
