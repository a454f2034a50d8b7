import { Worker } from 'node:worker_threads';

/** Text of a PDF, one entry per page, plus the document title when the file names one. */
export interface PdfText {
  readonly pages: string[];
  readonly title?: string;
}

/** Port: turns PDF bytes into per-page text. */
export abstract class PdfTextExtractor {
  abstract extract(data: Buffer): Promise<PdfText>;
}

/** Thrown when the bytes are not a readable PDF (corrupt, encrypted, truncated) or parsing ran too long. */
export class PdfReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PdfReadError';
  }
}

type WorkerReply = { ok: true; pages: string[]; title?: string } | { ok: false; message: string };

// Plain CommonJS run by Node itself in a worker thread. PDF.js loads its own worker with a dynamic
// import(), which only Node's loader can do (not jest's VM), and a hostile PDF can spin the CPU for
// long: in a thread it neither blocks the service's event loop nor outlives the deadline.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { PDFParse } = require(workerData.pdfParsePath);
(async () => {
  const parser = new PDFParse({ data: workerData.data, verbosity: 0 });
  try {
    const text = await parser.getText();
    let title;
    try {
      const info = await parser.getInfo();
      title = info && info.info ? info.info.Title : undefined;
    } catch (e) {}
    parentPort.postMessage({ ok: true, pages: text.pages.map((p) => p.text), title: typeof title === 'string' ? title : undefined });
  } catch (err) {
    parentPort.postMessage({ ok: false, message: String((err && err.message) || err) });
  } finally {
    await parser.destroy().catch(() => undefined);
  }
})();
`;

export interface PdfParseExtractorOptions {
  /** Upper bound for one file; a PDF that takes longer is reported unreadable. */
  readonly timeoutMs: number;
  /** Heap limit of the parsing thread. */
  readonly maxHeapMb: number;
}

/** pdf-parse (PDF.js) in a short-lived worker thread; fully offline (standard fonts are bundled). */
export class PdfParseExtractor extends PdfTextExtractor {
  private readonly pdfParsePath = require.resolve('pdf-parse');

  constructor(private readonly options: PdfParseExtractorOptions = { timeoutMs: 60_000, maxHeapMb: 512 }) {
    super();
  }

  extract(data: Buffer): Promise<PdfText> {
    return new Promise<PdfText>((resolve, reject) => {
      const worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { pdfParsePath: this.pdfParsePath, data: new Uint8Array(data) },
        resourceLimits: { maxOldGenerationSizeMb: this.options.maxHeapMb },
        stdout: true,
        stderr: true,
      });
      let settled = false;
      const finish = (fn: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        fn();
        void worker.terminate();
      };
      const timer = setTimeout(
        () => finish(() => reject(new PdfReadError(`PDF parsing exceeded ${this.options.timeoutMs} ms`))),
        this.options.timeoutMs,
      );
      worker.once('message', (reply: WorkerReply) =>
        finish(() =>
          reply.ok
            ? resolve({ pages: reply.pages, title: reply.title?.trim() || undefined })
            : reject(new PdfReadError(`Could not read the PDF: ${reply.message}`)),
        ),
      );
      worker.once('error', (err) =>
        finish(() => reject(new PdfReadError(`Could not read the PDF: ${err.message}`))),
      );
      worker.once('exit', (code) =>
        finish(() => reject(new PdfReadError(`PDF parser stopped unexpectedly (exit ${code})`))),
      );
    });
  }
}

/** Markdown of a PDF: pages in order, separated by a blank line; PDF text has no richer structure. */
export function pdfToMarkdown(text: PdfText): string {
  return text.pages
    .map((p) => p.replace(/[ \t]+\n/g, '\n').trim())
    .filter((p) => p.length > 0)
    .join('\n\n');
}
