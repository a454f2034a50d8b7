import { Injectable } from '@nestjs/common';
import { Objm, type ObjectStore } from '@nats-io/obj';
import { ARTIFACTS_BUCKET, ArtifactMeta } from '@wds/contracts';
import { Messaging } from '@wds/messaging';

export interface StoredArtifact {
  meta: ArtifactMeta;
  contentType: string;
  data: Uint8Array;
}

/**
 * Reads screenshot/PDF artifacts and session recordings the browser-pool stored in the JetStream
 * object store (and deletes a recording when its team asks).
 */
export abstract class ArtifactReader {
  abstract read(id: string): Promise<StoredArtifact | undefined>;
  /** The metadata of the object `name` (a file of a recording), or undefined. */
  abstract metadataOf(name: string): Promise<Record<string, string> | undefined>;
  /** The object `name` and its metadata, or undefined. */
  abstract readNamed(
    name: string,
  ): Promise<{ metadata: Record<string, string>; data: Uint8Array } | undefined>;
  /** Deletes the object `name` (a file of a recording the team deletes); false if there was none. */
  abstract deleteNamed(name: string): Promise<boolean>;
}

@Injectable()
export class ObjectStoreArtifactReader extends ArtifactReader {
  private bucket?: ObjectStore;

  constructor(private readonly messaging: Messaging) {
    super();
  }

  async read(id: string): Promise<StoredArtifact | undefined> {
    const stored = await this.readNamed(id);
    const meta = ArtifactMeta.safeParse(stored?.metadata ?? {});
    if (!stored || !meta.success) return undefined;
    return {
      meta: meta.data,
      contentType: stored.metadata.contentType ?? 'application/octet-stream',
      data: stored.data,
    };
  }

  async metadataOf(name: string): Promise<Record<string, string> | undefined> {
    const store = await this.open();
    const info = store ? await store.info(name) : null;
    return info && !info.deleted ? (info.metadata ?? {}) : undefined;
  }

  async readNamed(name: string): Promise<{ metadata: Record<string, string>; data: Uint8Array } | undefined> {
    const store = await this.open();
    if (!store) return undefined;
    const info = await store.info(name);
    if (!info || info.deleted) return undefined;
    const data = await store.getBlob(name);
    return data ? { metadata: info.metadata ?? {}, data } : undefined;
  }

  async deleteNamed(name: string): Promise<boolean> {
    const store = await this.open();
    const info = store ? await store.info(name) : null;
    if (!store || !info || info.deleted) return false;
    return (await store.delete(name)).success;
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
