/**
 * Where the first NUL character (U+0000) in a parsed JSON value is, as a field path (`webhook.metadata.a`,
 * `includePaths[2]`, `body` for the top level), or null when there is none. Keys are checked too.
 * Iterative: a deeply nested body must not exhaust the stack.
 */
export function findNul(root: unknown): string | null {
  const stack: [unknown, string][] = [[root, 'body']];
  while (stack.length > 0) {
    const [value, path] = stack.pop() as [unknown, string];
    if (typeof value === 'string') {
      if (value.includes('\0')) return path;
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], `${path}[${i}]`]);
      continue;
    }
    for (const [key, v] of Object.entries(value)) {
      const here = path === 'body' ? key : `${path}.${key}`;
      if (key.includes('\0')) return here.replace(/\0/g, '\\u0000');
      stack.push([v, here]);
    }
  }
  return null;
}
