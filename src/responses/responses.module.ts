import { Logger, Module, type OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { AuthGuard } from '../common/auth/auth.guard';
import { BackgroundResponses } from './background-responses.service';
import { ModelsController } from './models.controller';
import { ResponsesController } from './responses.controller';
import { ResponsesService } from './responses.service';

@Module({
  controllers: [ResponsesController, ModelsController],
  providers: [ResponsesService, BackgroundResponses, AuthGuard],
})
export class ResponsesModule implements OnModuleInit {
  constructor(private readonly config: AppConfig) {}

  onModuleInit(): void {
    if (this.config.apiKeys.size === 0) {
      new Logger('Auth').warn('API_KEYS is not set: authentication is off and every caller shares one tenant');
    }
  }
}
