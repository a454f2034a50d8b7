import { Module } from '@nestjs/common';
import { ArtifactReader, ObjectStoreArtifactReader } from './artifact-reader';
import { ArtifactsController } from './artifacts.controller';
import { GetArtifactUseCase } from './get-artifact.usecase';

/** GET /v2/artifacts/{id}: screenshots and PDFs of browser scrapes, served to the owning team. */
@Module({
  controllers: [ArtifactsController],
  providers: [{ provide: ArtifactReader, useClass: ObjectStoreArtifactReader }, GetArtifactUseCase],
  exports: [ArtifactReader],
})
export class ArtifactsModule {}
