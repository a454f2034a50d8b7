import { Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { GatewayExceptionFilter } from './gateway-exception.filter';

@Module({ providers: [{ provide: APP_FILTER, useClass: GatewayExceptionFilter }] })
export class HttpModule {}
