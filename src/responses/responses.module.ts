import { Module } from '@nestjs/common';
import { AuthGuard } from '../common/auth/auth.guard';
import { ModelsController } from './models.controller';
import { ResponsesController } from './responses.controller';
import { ResponsesService } from './responses.service';

@Module({
  controllers: [ResponsesController, ModelsController],
  providers: [ResponsesService, AuthGuard],
})
export class ResponsesModule {}
