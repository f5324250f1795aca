import { Module } from '@nestjs/common';
import { AuthGuard } from '../common/auth/auth.guard';
import { ReasoningCipher } from '../common/reasoning-cipher';
import { AppConfig } from '../config/app-config';
import { ResponseRunner } from '../generation/response-runner';
import { ResponseStore } from '../store/response-store';
import { ModelsController } from './models.controller';
import { ResponsesController } from './responses.controller';
import { ResponsesService } from './responses.service';

@Module({
  controllers: [ResponsesController, ModelsController],
  providers: [
    ResponsesService,
    ResponseRunner,
    ResponseStore,
    AuthGuard,
    { provide: ReasoningCipher, useFactory: (config: AppConfig) => new ReasoningCipher(config.reasoningEncryptionKey), inject: [AppConfig] },
  ],
})
export class ResponsesModule {}
