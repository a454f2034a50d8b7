import { Module } from '@nestjs/common';
import { CheckPlatformHealth } from './check-platform-health.usecase';
import { PlatformHealthController } from './platform-health.controller';

@Module({ controllers: [PlatformHealthController], providers: [CheckPlatformHealth] })
export class HealthModule {}
