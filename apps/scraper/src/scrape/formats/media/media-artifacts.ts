import { randomUUID } from 'node:crypto';
import { Objm, StorageType, type ObjectStore } from '@nats-io/obj';
import { ARTIFACTS_BUCKET } from '@wds/contracts';
import type { Messaging } from '@wds/messaging';

/** Port: where the media formats' files go (served by the gateway at /v2/artifacts/{id}). */
export abstract class MediaArtifacts {
  abstract put(teamId: string, kind: 'audio' | 'video', contentType: string, data: Buffer): Promise<string>;
}

/**
 * The JetStream object store bucket of screenshots and PDFs (`wds-artifacts`), owner and kind in each
 * object's metadata. Whichever service comes first creates it with its TTL; an existing one keeps its own.
 */
export class ObjectStoreMediaArtifacts extends MediaArtifacts {
  private bucket?: Promise<ObjectStore>;

  constructor(
    private readonly messaging: Messaging,
    private readonly ttlMs: number,
  ) {
    super();
  }

  async put(teamId: string, kind: 'audio' | 'video', contentType: string, data: Buffer): Promise<string> {
    this.bucket ??= new Objm(this.messaging.js)
      .create(ARTIFACTS_BUCKET, { ttl: this.ttlMs * 1_000_000, storage: StorageType.File })
      .catch((err: unknown) => {
        this.bucket = undefined;
        throw err;
      });
    const id = randomUUID();
    await (
      await this.bucket
    ).putBlob({ name: id, metadata: { teamId, kind, contentType } }, new Uint8Array(data));
    return id;
  }
}
