import { Injectable } from '@nestjs/common';
import { Objm, type ObjectStore } from '@nats-io/obj';
import { ARTIFACTS_BUCKET, ArtifactMeta } from '@wds/contracts';
import { Messaging } from '@wds/messaging';

export interface StoredArtifact {
  meta: ArtifactMeta;
  contentType: string;
  data: Uint8Array;
}

/** Reads screenshot/PDF artifacts the browser-pool stored in the JetStream object store. */
export abstract class ArtifactReader {
  abstract read(id: string): Promise<StoredArtifact | undefined>;
}

@Injectable()
export class ObjectStoreArtifactReader extends ArtifactReader {
  private bucket?: ObjectStore;

  constructor(private readonly messaging: Messaging) {
    super();
  }

  async read(id: string): Promise<StoredArtifact | undefined> {
    const store = await this.open();
    if (!store) return undefined;
    const info = await store.info(id);
    if (!info || info.deleted) return undefined;
    const meta = ArtifactMeta.safeParse(info.metadata ?? {});
    if (!meta.success) return undefined;
    const data = await store.getBlob(id);
    if (!data) return undefined;
    return { meta: meta.data, contentType: info.metadata?.contentType ?? 'application/octet-stream', data };
  }

  /** The bucket, or undefined while no browser-pool has created it (nothing to serve yet). */
  private async open(): Promise<ObjectStore | undefined> {
    if (this.bucket) return this.bucket;
    try {
      this.bucket = await new Objm(this.messaging.js).open(ARTIFACTS_BUCKET);
      return this.bucket;
    } catch {
      return undefined;
    }
  }
}
