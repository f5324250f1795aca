import { Global, Module } from '@nestjs/common';
import { ReasoningCipher } from '../common/reasoning-cipher';
import { AppConfig } from '../config/app-config';
import { ResponseRunner } from './response-runner';

/** The generation loop, shared by foreground requests (API) and background jobs (worker). */
@Global()
@Module({
  providers: [
    ResponseRunner,
    { provide: ReasoningCipher, useFactory: (config: AppConfig) => new ReasoningCipher(config.reasoningEncryptionKey), inject: [AppConfig] },
  ],
  exports: [ResponseRunner, ReasoningCipher],
})
export class GenerationModule {}
