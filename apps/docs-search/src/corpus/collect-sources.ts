import fs from 'node:fs';
import path from 'node:path';

/** Folders never indexed: dependencies, build output, local data, VCS and tool caches. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.git', '.data', '.nx', 'coverage', 'tmp']);

export interface SourceFile {
  /** Path relative to the docs root with forward slashes (`docs/webhooks.md`): the citation's file part. */
  source: string;
  text: string;
}

/**
 * The published reference under `root`: every README.md (root, apps, libs, charts, tools) and every
 * markdown file under `docs/` (user docs, the API spec, ADRs, webhooks, benchmarks). Sorted, so the
 * index is built in the same order everywhere.
 */
export function collectSources(root: string): SourceFile[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIPPED_DIRS.has(e.name) && !e.name.startsWith('.')) walk(abs);
        continue;
      }
      if (!e.isFile()) continue;
      const rel = path.relative(root, abs).split(path.sep).join('/');
      if (e.name === 'README.md' || (rel.startsWith('docs/') && rel.endsWith('.md'))) found.push(rel);
    }
  };
  walk(root);
  return found.sort().map((source) => ({ source, text: fs.readFileSync(path.join(root, source), 'utf8') }));
}

/** The repository root when running from a checkout: the nearest folder above `from` with nx.json. */
export function findDocsRoot(from: string): string | undefined {
  let dir = path.resolve(from);
  for (;;) {
    if (fs.existsSync(path.join(dir, 'nx.json')) && fs.existsSync(path.join(dir, 'docs'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}
