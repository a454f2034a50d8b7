import { artifactUrl, type Artifact, type ArtifactSigning, type Document } from '@wds/contracts';
import type { RenderedPage } from '../engine/browser-engine';

/** A stored artifact as the URL the gateway serves it at; an inline one as a data: URL. */
export function artifactLink(a: Artifact, publicBaseUrl: string, signing?: ArtifactSigning): string {
  return a.id !== undefined
    ? artifactUrl(publicBaseUrl, a.id, signing)
    : `data:${a.contentType};base64,${a.base64}`;
}

/** `screenshot` and `actions` of a document rendered by the browser. */
export function browserResults(
  r: RenderedPage,
  publicBaseUrl: string,
  signing?: ArtifactSigning,
): Pick<Document, 'screenshot' | 'actions'> {
  const out: Pick<Document, 'screenshot' | 'actions'> = {};
  if (r.screenshot) out.screenshot = artifactLink(r.screenshot, publicBaseUrl, signing);
  const a = r.actions;
  if (a.screenshots.length + a.javascriptReturns.length + a.pdfs.length + r.content.scrapes.length > 0) {
    out.actions = {
      screenshots: a.screenshots.map((s) => artifactLink(s, publicBaseUrl, signing)),
      scrapes: r.content.scrapes,
      javascriptReturns: a.javascriptReturns,
      pdfs: a.pdfs.map((p) => artifactLink(p, publicBaseUrl, signing)),
    };
  }
  return out;
}
