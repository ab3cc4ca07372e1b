'use strict';
// hashlab's Node harness: speaks PROTOCOL.md (beside this directory) on
// stdin/stdout. Node 20, CommonJS, standard library only; `@noble/hashes` and
// `hash-wasm` are used when require() finds them in this directory's
// node_modules, in NODE_PATH, or in Node's global folders (~/.node_modules,
// <prefix>/lib/node); never in a node_modules above this directory.
//
// Every answer is one line on stdout; nothing else goes to stdout. A request
// that cannot be served answers `error\t<message>` and the harness keeps
// going. It exits 0 on EOF or `quit`, after stdout has drained.
//
// What is timed is the usual idiom, one complete one-shot digest per message:
// `crypto.createHash('sha256').update(m).digest()` (Node 20 has no
// crypto.hash one-shot), `zlib.crc32(m)`, noble's `blake3(m)`, and for
// hash-wasm a hasher created once at start-up (its factories are async) and
// used synchronously: `h.init().update(m).digest('binary')`.
//
// V8 compiles the timing loops as they run; the harness does no warm-up of
// its own and relies on hashlab calling `time` repeatedly before it measures.

const crypto = require('crypto');
const zlib = require('zlib');
const fs = require('fs');
const path = require('path');
const readline = require('readline');
const { pathToFileURL } = require('url');

// require() would also look in every node_modules above this file: under a
// cache in /tmp, a /tmp/node_modules anyone can plant would run as the user.
// Only this directory's own, then NODE_PATH and Node's global folders.
module.paths = [path.join(__dirname, 'node_modules')];

const LIB_CRYPTO = 'node crypto';
const LIB_ZLIB = 'node zlib';
const LIB_NOBLE = 'node @noble/hashes';
const LIB_HASHWASM = 'node hash-wasm';
const LIB_HARNESS = 'node harness';

// label -> Map(algorithm -> {kind, f}); kinds:
//   'crypto'  f is the crypto name: createHash(f).update(m).digest()
//   'fn'      f(m) is the digest (noble)
//   'hasher'  f is a hash-wasm IHasher: f.init().update(m).digest('binary')
//   'crc'     f(m) is an unsigned 32-bit number, the digest its big-endian 4 bytes
const libraries = new Map();
const absent = []; // [label, reason]
const versions = []; // extra "name version" strings for hello

function oneLine(text) {
  return String(text).replace(/\s+/g, ' ').trim();
}

// --- node crypto -----------------------------------------------------------
{
  const have = new Set(crypto.getHashes().map((n) => n.toLowerCase()));
  const names = [
    ['md5', 'md5'],
    ['sha1', 'sha1'],
    ['sha224', 'sha224'],
    ['sha256', 'sha256'],
    ['sha384', 'sha384'],
    ['sha512', 'sha512'],
    ['sha512-224', 'sha512-224'],
    ['sha512-256', 'sha512-256'],
    ['sha3-224', 'sha3-224'],
    ['sha3-256', 'sha3-256'],
    ['sha3-384', 'sha3-384'],
    ['sha3-512', 'sha3-512'],
    ['blake2b', 'blake2b512'],
    ['blake2s', 'blake2s256'],
  ];
  const table = new Map();
  for (const [algorithm, name] of names) {
    if (!have.has(name)) continue;
    try {
      crypto.createHash(name).update(Buffer.alloc(0)).digest();
      table.set(algorithm, { kind: 'crypto', f: name });
    } catch (_) {
      // listed but refused (FIPS mode): not offered
    }
  }
  libraries.set(LIB_CRYPTO, table);
}

// --- node zlib (crc32 since Node 20.15 / 22.2) ------------------------------
if (typeof zlib.crc32 === 'function') {
  libraries.set(LIB_ZLIB, new Map([['crc32', { kind: 'crc', f: zlib.crc32 }]]));
} else {
  absent.push([LIB_ZLIB, 'zlib.crc32 needs Node 20.15 or later']);
}

// --- optional packages ------------------------------------------------------

// require() first (it honours NODE_PATH, and loads ESM-only packages on Node
// 20.19+); an ESM-only package on an older Node is resolved with
// require.resolve and imported by file URL.
async function load(spec) {
  try {
    return require(spec);
  } catch (e) {
    if (e && (e.code === 'ERR_REQUIRE_ESM' || e.code === 'ERR_REQUIRE_ASYNC_MODULE')) {
      return await import(pathToFileURL(require.resolve(spec)).href);
    }
    throw e;
  }
}

// The version in the package.json above a resolved file of the package.
function packageVersion(spec, name) {
  try {
    let dir = path.dirname(require.resolve(spec));
    for (let i = 0; i < 8; i++) {
      const file = path.join(dir, 'package.json');
      if (fs.existsSync(file)) {
        const json = JSON.parse(fs.readFileSync(file, 'utf8'));
        if (json.name === name) return json.version || 'unknown';
      }
      const up = path.dirname(dir);
      if (up === dir) break;
      dir = up;
    }
  } catch (_) {
    // fall through
  }
  return 'unknown';
}

function reason(e) {
  if (e && e.code === 'MODULE_NOT_FOUND') {
    return (e.message || 'not found').split('\n')[0];
  }
  return (e && e.message) || String(e);
}

async function loadNoble() {
  // v2 (ESM-only) has sha2.js, blake2.js, legacy.js; v1 had sha256, sha512,
  // blake2b, blake2s, sha1 (and later the same files without `.js`).
  // blake3 first: when the package is missing, its error is the one reported.
  const wanted = [
    ['blake3', 'blake3', ['blake3.js', 'blake3']],
    ['md5', 'md5', ['legacy.js', 'legacy']],
    ['sha1', 'sha1', ['legacy.js', 'legacy', 'sha1.js', 'sha1']],
    ['sha224', 'sha224', ['sha2.js', 'sha2', 'sha256.js', 'sha256']],
    ['sha256', 'sha256', ['sha2.js', 'sha2', 'sha256.js', 'sha256']],
    ['sha384', 'sha384', ['sha2.js', 'sha2', 'sha512.js', 'sha512']],
    ['sha512', 'sha512', ['sha2.js', 'sha2', 'sha512.js', 'sha512']],
    ['sha512-224', 'sha512_224', ['sha2.js', 'sha2', 'sha512.js', 'sha512']],
    ['sha512-256', 'sha512_256', ['sha2.js', 'sha2', 'sha512.js', 'sha512']],
    ['sha3-224', 'sha3_224', ['sha3.js', 'sha3']],
    ['sha3-256', 'sha3_256', ['sha3.js', 'sha3']],
    ['sha3-384', 'sha3_384', ['sha3.js', 'sha3']],
    ['sha3-512', 'sha3_512', ['sha3.js', 'sha3']],
    ['blake2b', 'blake2b', ['blake2.js', 'blake2', 'blake2b.js', 'blake2b']],
    ['blake2s', 'blake2s', ['blake2.js', 'blake2', 'blake2s.js', 'blake2s']],
  ];
  const modules = new Map(); // sub-path -> module or null
  let firstError = null;
  let versionSpec = null;
  async function mod(sub) {
    if (!modules.has(sub)) {
      const spec = '@noble/hashes/' + sub;
      try {
        modules.set(sub, await load(spec));
        if (versionSpec === null) versionSpec = spec;
      } catch (e) {
        if (firstError === null) firstError = e;
        modules.set(sub, null);
      }
    }
    return modules.get(sub);
  }
  const table = new Map();
  const empty = new Uint8Array(0);
  for (const [algorithm, name, subs] of wanted) {
    for (const sub of subs) {
      const m = await mod(sub);
      const f = m && m[name];
      if (typeof f !== 'function') continue;
      try {
        f(empty);
        table.set(algorithm, { kind: 'fn', f });
        break;
      } catch (_) {
        // not usable: try the next place
      }
    }
  }
  if (table.size === 0) {
    absent.push([LIB_NOBLE, firstError ? reason(firstError) : 'no usable export found']);
    return;
  }
  libraries.set(LIB_NOBLE, table);
  versions.push('@noble/hashes ' + packageVersion(versionSpec, '@noble/hashes'));
}

async function loadHashWasm() {
  let hw;
  try {
    hw = await load('hash-wasm');
  } catch (e) {
    absent.push([LIB_HASHWASM, reason(e)]);
    return;
  }
  const wanted = [
    ['md5', 'createMD5', []],
    ['sha1', 'createSHA1', []],
    ['sha224', 'createSHA224', []],
    ['sha256', 'createSHA256', []],
    ['sha384', 'createSHA384', []],
    ['sha512', 'createSHA512', []],
    ['sha3-224', 'createSHA3', [224]],
    ['sha3-256', 'createSHA3', [256]],
    ['sha3-384', 'createSHA3', [384]],
    ['sha3-512', 'createSHA3', [512]],
    ['blake2b', 'createBLAKE2b', [512]],
    ['blake2s', 'createBLAKE2s', [256]],
    ['blake3', 'createBLAKE3', [256]],
    ['xxh32', 'createXXHash32', []],
    ['xxh64', 'createXXHash64', []],
    ['xxh3-64', 'createXXHash3', []],
    ['xxh3-128', 'createXXHash128', []],
    ['crc32', 'createCRC32', []],
    ['crc32c', 'createCRC32', [0x82f63b78]],
  ];
  const table = new Map();
  const empty = new Uint8Array(0);
  for (const [algorithm, factory, args] of wanted) {
    if (typeof hw[factory] !== 'function') continue;
    try {
      const h = await hw[factory](...args);
      h.init().update(empty).digest('binary');
      table.set(algorithm, { kind: 'hasher', f: h });
    } catch (_) {
      // not usable here: not offered
    }
  }
  if (table.size === 0) {
    absent.push([LIB_HASHWASM, 'no hasher could be created']);
    return;
  }
  libraries.set(LIB_HASHWASM, table);
  versions.push('hash-wasm ' + packageVersion('hash-wasm', 'hash-wasm'));
}

// --- hashing and timing -------------------------------------------------------

function oneDigest(entry, m) {
  switch (entry.kind) {
    case 'crypto':
      return crypto.createHash(entry.f).update(m).digest();
    case 'fn':
      return entry.f(m);
    case 'hasher':
      return entry.f.init().update(m).digest('binary');
    case 'crc': {
      const v = entry.f(m) >>> 0;
      return Uint8Array.of(v >>> 24, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff);
    }
    default:
      throw new Error('null has no digest');
  }
}

function timeCrypto(name, m, batch) {
  const createHash = crypto.createHash;
  let s = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < batch; i++) {
    s ^= createHash(name).update(m).digest()[0];
  }
  const t1 = process.hrtime.bigint();
  return [t1 - t0, s];
}

function timeFn(f, m, batch) {
  let s = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < batch; i++) {
    s ^= f(m)[0];
  }
  const t1 = process.hrtime.bigint();
  return [t1 - t0, s];
}

function timeHasher(h, m, batch) {
  let s = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < batch; i++) {
    s ^= h.init().update(m).digest('binary')[0];
  }
  const t1 = process.hrtime.bigint();
  return [t1 - t0, s];
}

function timeCrc(f, m, batch) {
  // The first byte of the big-endian digest is the top byte of the value.
  let s = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < batch; i++) {
    s ^= f(m) >>> 24;
  }
  const t1 = process.hrtime.bigint();
  return [t1 - t0, s];
}

function timeNull(_f, m, batch) {
  // What the loop costs without a hash: the message's first and last byte.
  let s = 0;
  const last = m.length - 1;
  let t0;
  let t1;
  if (last >= 0) {
    t0 = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) {
      s ^= m[0] ^ m[last];
    }
    t1 = process.hrtime.bigint();
  } else {
    const z = 0;
    t0 = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) {
      s ^= z ^ z;
    }
    t1 = process.hrtime.bigint();
  }
  return [t1 - t0, s];
}

const timers = { crypto: timeCrypto, fn: timeFn, hasher: timeHasher, crc: timeCrc, null: timeNull };

function message(size) {
  const m = Buffer.alloc(size);
  for (let i = 0; i < size; i++) m[i] = (i * 7 + 1) & 0xff;
  return m;
}

function lookup(algorithm, library) {
  if (library === LIB_HARNESS) {
    if (algorithm === 'null') return { kind: 'null', f: null };
    throw new Error(`${LIB_HARNESS} offers only null, not ${algorithm}`);
  }
  const table = libraries.get(library);
  if (table === undefined) {
    const a = absent.find(([label]) => label === library);
    if (a) throw new Error(`${library} is absent: ${a[1]}`);
    throw new Error(`unknown library ${library}`);
  }
  const entry = table.get(algorithm);
  if (entry === undefined) throw new Error(`${library} does not offer ${algorithm}`);
  return entry;
}

function parseCount(text, what) {
  if (!/^[0-9]+$/.test(text)) throw new Error(`bad ${what}: ${text}`);
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new Error(`bad ${what}: ${text}`);
  return n;
}

function parseHex(text) {
  if (text.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(text)) throw new Error('bad hex message');
  return Buffer.from(text, 'hex');
}

function version() {
  const parts = ['OpenSSL ' + process.versions.openssl].concat(versions);
  return `node ${process.version} (${parts.join('; ')})`;
}

function offers() {
  const lines = [];
  for (const [label, table] of libraries) {
    for (const algorithm of table.keys()) lines.push(`offer\t${algorithm}\t${label}`);
  }
  lines.push(`offer\tnull\t${LIB_HARNESS}`);
  for (const [label, why] of absent) lines.push(`absent\t${label}\t${oneLine(why)}`);
  lines.push('end');
  return lines.join('\n');
}

const cells = new Map(); // cell -> {timer, f, m}

// A hash-wasm hasher is shared by the cells of its algorithm: each digest is a
// complete init/update/digest run synchronously, so no state crosses cells.
function handle(fields) {
  switch (fields[0]) {
    case 'hello':
      return 'hello\t' + oneLine(version());
    case 'offers':
      return offers();
    case 'digest': {
      if (fields.length !== 4) throw new Error('digest wants: digest<TAB>algorithm<TAB>library<TAB>hex');
      const entry = lookup(fields[1], fields[2]);
      if (entry.kind === 'null') throw new Error('null has no digest');
      const m = parseHex(fields[3]);
      return 'digest\t' + Buffer.from(oneDigest(entry, m)).toString('hex');
    }
    case 'prepare': {
      if (fields.length !== 5) {
        throw new Error('prepare wants: prepare<TAB>cell<TAB>algorithm<TAB>library<TAB>size');
      }
      const cell = parseCount(fields[1], 'cell');
      const entry = lookup(fields[2], fields[3]);
      const size = parseCount(fields[4], 'size');
      cells.delete(cell);
      cells.set(cell, { timer: timers[entry.kind], f: entry.f, m: message(size) });
      return 'ok';
    }
    case 'time': {
      if (fields.length !== 3) throw new Error('time wants: time<TAB>cell<TAB>batch');
      const cell = parseCount(fields[1], 'cell');
      const batch = parseCount(fields[2], 'batch');
      const c = cells.get(cell);
      if (c === undefined) throw new Error(`cell ${cell} is not prepared`);
      const [elapsed, sink] = c.timer(c.f, c.m, batch);
      return `ns\t${elapsed}\t${sink}`;
    }
    default:
      return 'error\tunknown request';
  }
}

function write(line) {
  process.stdout.write(line + '\n');
}

async function main() {
  process.stdout.on('error', () => process.exit(0)); // the reader went away
  await loadNoble();
  await loadHashWasm();

  // Opened only now: stdin stays paused (its bytes wait in the pipe) until the
  // async loading above has finished, so no request can be missed or reordered.
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  for await (const raw of rl) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const fields = line.split('\t');
    if (fields[0] === 'quit') break;
    let answer;
    try {
      answer = handle(fields);
    } catch (e) {
      answer = 'error\t' + (oneLine((e && e.message) || e) || 'error');
    }
    write(answer);
  }
  rl.close();
  process.stdin.destroy();
  // Exit once everything written has been handed to the pipe.
  process.stdout.write('', () => process.exit(0));
}

main().catch((e) => {
  process.stderr.write(`harness: ${(e && e.stack) || e}\n`);
  process.stdout.write('', () => process.exit(1));
});
