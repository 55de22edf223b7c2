/**
 * Dot products for the dense scan in WebAssembly SIMD (f32x4), ~3× the plain JS loop on the
 * 100,000-chunk bench: the company's vectors live in a WebAssembly.Memory (lib/knowledge/search-cache.ts)
 * and one call scores them all. The module is 150 bytes, hand-assembled below so nothing is
 * compiled at build time; `scan(vec, q, out, count, stride)` writes `count` float32 scores to
 * `out`, each the dot product of `stride` floats at `vec + i·stride·4` with those at `q` (byte
 * addresses; `stride` a multiple of 4).
 *
 *   (func $dot (param $p i32) (param $q i32) (param $n i32) (result f32) (local $acc v128) (local $end i32)
 *     end = p + n·4; loop while p < end: acc = f32x4.add(acc, f32x4.mul(v128.load p, v128.load q)); p += 16; q += 16
 *     return lane0 + lane1 + lane2 + lane3)
 *   (func $scan (param $vec i32) (param $q i32) (param $out i32) (param $count i32) (param $stride i32) (local $s i32)
 *     loop while s < count: f32.store out (dot vec q stride); vec += stride·4; out += 4; s++)
 */
const HEADER = [
  // magic, version
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  // type section: (i32 i32 i32) -> f32, (i32 i32 i32 i32 i32) -> ()
  0x01, 0x10, 0x02, 0x60, 0x03, 0x7f, 0x7f, 0x7f, 0x01, 0x7d, 0x60, 0x05, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x00,
  // import section: "m" "mem" memory, min 1 page
  0x02, 0x0a, 0x01, 0x01, 0x6d, 0x03, 0x6d, 0x65, 0x6d, 0x02, 0x00, 0x01,
  // function section: dot: type 0, scan: type 1
  0x03, 0x03, 0x02, 0x00, 0x01,
  // export section: "scan" → func 1
  0x07, 0x08, 0x01, 0x04, 0x73, 0x63, 0x61, 0x6e, 0x00, 0x01,
];
const DOT_BODY = [
  0x02,
  0x01,
  0x7b,
  0x01,
  0x7f, // locals: acc v128, end i32
  0x20,
  0x00,
  0x20,
  0x02,
  0x41,
  0x02,
  0x74,
  0x6a,
  0x21,
  0x04, // end = p + (n << 2)
  0x02,
  0x40,
  0x03,
  0x40, // block, loop
  0x20,
  0x00,
  0x20,
  0x04,
  0x4f,
  0x0d,
  0x01, // br_if p >= end
  0x20,
  0x03,
  0x20,
  0x00,
  0xfd,
  0x00,
  0x02,
  0x00,
  0x20,
  0x01,
  0xfd,
  0x00,
  0x02,
  0x00,
  0xfd,
  0xe6,
  0x01,
  0xfd,
  0xe4,
  0x01,
  0x21,
  0x03,
  0x20,
  0x00,
  0x41,
  0x10,
  0x6a,
  0x21,
  0x00, // p += 16
  0x20,
  0x01,
  0x41,
  0x10,
  0x6a,
  0x21,
  0x01, // q += 16
  0x0c,
  0x00,
  0x0b,
  0x0b, // br loop, end loop, end block
  0x20,
  0x03,
  0xfd,
  0x1f,
  0x00,
  0x20,
  0x03,
  0xfd,
  0x1f,
  0x01,
  0x92,
  0x20,
  0x03,
  0xfd,
  0x1f,
  0x02,
  0x92,
  0x20,
  0x03,
  0xfd,
  0x1f,
  0x03,
  0x92,
  0x0b,
];
const SCAN_BODY = [
  0x01,
  0x01,
  0x7f, // locals: s i32
  0x02,
  0x40,
  0x03,
  0x40,
  0x20,
  0x05,
  0x20,
  0x03,
  0x4f,
  0x0d,
  0x01, // br_if s >= count
  0x20,
  0x02,
  0x20,
  0x00,
  0x20,
  0x01,
  0x20,
  0x04,
  0x10,
  0x00,
  0x38,
  0x02,
  0x00, // f32.store out (dot vec q stride)
  0x20,
  0x00,
  0x20,
  0x04,
  0x41,
  0x02,
  0x74,
  0x6a,
  0x21,
  0x00, // vec += stride << 2
  0x20,
  0x02,
  0x41,
  0x04,
  0x6a,
  0x21,
  0x02, // out += 4
  0x20,
  0x05,
  0x41,
  0x01,
  0x6a,
  0x21,
  0x05, // s += 1
  0x0c,
  0x00,
  0x0b,
  0x0b,
  0x0b,
];

/** Unsigned LEB128. */
function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n) byte |= 0x80;
    out.push(byte);
  } while (n);
  return out;
}

function assemble(): Uint8Array<ArrayBuffer> {
  const code = [0x02, ...leb(DOT_BODY.length), ...DOT_BODY, ...leb(SCAN_BODY.length), ...SCAN_BODY];
  return Uint8Array.from([...HEADER, 0x0a, ...leb(code.length), ...code]);
}

export interface SimdDot {
  memory: WebAssembly.Memory;
  scan(vec: number, q: number, out: number, count: number, stride: number): void;
}

let module: WebAssembly.Module | null | undefined;

/** A scanner over a fresh memory of `pages` 64 KiB pages, or null where WebAssembly SIMD is unavailable. */
export function createSimdDot(pages: number): SimdDot | null {
  if (module === undefined) {
    try {
      module = new WebAssembly.Module(assemble());
    } catch {
      // No SIMD (an old engine, or --no-experimental-wasm-simd): the caller scans in JS.
      module = null;
    }
  }
  if (!module) return null;
  const memory = new WebAssembly.Memory({ initial: pages });
  const instance = new WebAssembly.Instance(module, { m: { mem: memory } });
  return { memory, scan: instance.exports.scan as SimdDot["scan"] };
}
