import { Global, Module } from '@nestjs/common';
import { EventLog } from './event-log';
import { EventTail } from './event-tail';
import { RedisService } from './redis.service';
import { ResponseStore } from './response-store';

@Global()
@Module({ providers: [RedisService, ResponseStore, EventLog, EventTail], exports: [RedisService, ResponseStore, EventLog, EventTail] })
export class StoreModule {}
