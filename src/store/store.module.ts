import { Global, Module } from '@nestjs/common';
import { EventLog } from './event-log';
import { EventTail } from './event-tail';
import { RedisService } from './redis.service';
import { ResponseStore } from './response-store';
import { RunRegistry } from './run-registry';

@Global()
@Module({ providers: [RedisService, ResponseStore, EventLog, EventTail, RunRegistry], exports: [RedisService, ResponseStore, EventLog, EventTail, RunRegistry] })
export class StoreModule {}
