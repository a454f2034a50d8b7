import { randomUUID } from 'node:crypto';
import { ARTIFACTS_BUCKET, type Artifact, type ArtifactKind } from '@wds/contracts';
import type { Messaging } from '@wds/messaging';
import { Objm, StorageType, type ObjectStore } from '@nats-io/obj';

/** Where screenshots, PDFs and large rendered content go; never inline in NATS messages. */
export abstract class ArtifactStore {
  abstract put(teamId: string, kind: ArtifactKind, contentType: string, data: Buffer): Promise<Artifact>;
}

/** JetStream object store bucket, one object per artifact named by uuid, owner in the metadata; TTL on the bucket. */
export class ObjectStoreArtifacts extends ArtifactStore {
  private bucket?: Promise<ObjectStore>;

  constructor(
    private readonly messaging: Messaging,
    private readonly ttlMs: number,
  ) {
    super();
  }

  /** Creates the bucket (or opens it; an existing bucket keeps its TTL). */
  open(): Promise<ObjectStore> {
    this.bucket ??= new Objm(this.messaging.js)
      .create(ARTIFACTS_BUCKET, { ttl: this.ttlMs * 1_000_000, storage: StorageType.File })
      .catch((err: unknown) => {
        this.bucket = undefined;
        throw err;
      });
    return this.bucket;
  }

  async put(teamId: string, kind: ArtifactKind, contentType: string, data: Buffer): Promise<Artifact> {
    const id = randomUUID();
    const store = await this.open();
    await store.putBlob({ name: id, metadata: { teamId, kind, contentType } }, new Uint8Array(data));
    return { id, contentType, bytes: data.length };
  }

  /** The object `name` and its metadata, or undefined. */
  async getNamed(name: string): Promise<{ data: Buffer; metadata: Record<string, string> } | undefined> {
    const store = await this.open();
    const info = await store.info(name);
    if (!info || info.deleted) return undefined;
    const data = await store.getBlob(name);
    return data ? { data: Buffer.from(data), metadata: info.metadata ?? {} } : undefined;
  }

  /** Stores (or replaces) the object `name`, e.g. a file of a session recording. */
  async putNamed(name: string, metadata: Record<string, string>, data: Buffer): Promise<void> {
    const store = await this.open();
    await store.putBlob({ name, metadata }, new Uint8Array(data));
  }
}

/** Storage disabled: binaries travel base64 in the reply (small ones only; large content is refused). */
export class InlineArtifacts extends ArtifactStore {
  async put(_teamId: string, kind: ArtifactKind, contentType: string, data: Buffer): Promise<Artifact> {
    if (kind === 'content') throw new Error('inline artifacts cannot hold rendered content');
    return { base64: data.toString('base64'), contentType, bytes: data.length };
  }
}
