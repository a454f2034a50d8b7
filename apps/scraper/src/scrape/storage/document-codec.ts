import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { Document } from '@wds/contracts';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** Stored form of a document: gzip of its JSON (level 6: most of the gain at a fraction of level 9's CPU). */
export async function encodeDocument(document: Document): Promise<{ gz: Buffer; jsonBytes: number }> {
  const json = Buffer.from(JSON.stringify(document), 'utf8');
  return { gz: await gzipAsync(json, { level: 6 }), jsonBytes: json.length };
}

export async function decodeDocument(gz: Buffer): Promise<Document> {
  const json = await gunzipAsync(gz);
  return Document.parse(JSON.parse(json.toString('utf8')));
}

export function chunkCount(bytes: number, chunkBytes: number): number {
  return Math.max(1, Math.ceil(bytes / chunkBytes));
}
