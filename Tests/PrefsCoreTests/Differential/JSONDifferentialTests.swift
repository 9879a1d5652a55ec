import Foundation
import Testing
@testable import PrefsCore
import PrefsTestSupport

/// CPython's `json` as an oracle for the JSON decoder: it writes random documents (keys in any
/// order, repeated keys, escapes of every kind, numbers in many spellings, objects large enough for
/// the radix sort of keys) and, for each, what `json.loads` reads in a canonical form; PrefsCore
/// decodes the same bytes and must give the same form. A third of the documents set root members
/// to null, read with `import`'s null policy: the deleted keys must be those whose last member is
/// null, in document order. (`import` itself refuses a key given twice: a document with one is
/// refused naming a key, any other decodes the same.)
@Suite(.serialized) struct JSONDifferentialTests {
    static let generator = #"""
        import json, random, struct, sys
        seed, count, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
        rng = random.Random(seed)
        POOLS = [(0x20, 0x7E), (0x00, 0x1F), (0xA0, 0x24F), (0x3040, 0x30FF), (0xE000, 0xFFFF), (0x10000, 0x10FFFF)]
        SHARED = ["", "com.example.", "com.example.window.", "\u00e9", "e\u0301", "\x00", "a"]
        def text(short=False):
            chars = []
            for _ in range(rng.randint(0, 4 if short else 14)):
                lo, hi = rng.choice(POOLS)
                c = rng.randint(lo, hi)
                if not 0xD800 <= c <= 0xDFFF: chars.append(chr(c))
            return "".join(chars)
        def spell(s):  # a JSON string literal, each character spelled one of the allowed ways
            out = ['"']
            for ch in s:
                c = ord(ch)
                k = rng.randint(0, 3)
                if ch in '"\\' or c < 0x20 or k == 0:
                    if ch in '"\\/\b\f\n\r\t' and rng.random() < 0.5:
                        out.append("\\" + {'"': '"', "\\": "\\", "/": "/", "\b": "b", "\f": "f", "\n": "n", "\r": "r", "\t": "t"}[ch])
                    elif c > 0xFFFF:
                        c -= 0x10000
                        out.append("\\u%04x\\u%04X" % (0xD800 + (c >> 10), 0xDC00 + (c & 0x3FF)))
                    else:
                        out.append(("\\u%04x" if rng.random() < 0.5 else "\\u%04X") % c)
                else:
                    out.append(ch)
            return "".join(out) + '"'
        def number():
            k = rng.randint(0, 9)
            if k == 0: return str(rng.randint(-300, 300))
            if k == 1: return str(rng.randint(-2**63, 2**64 - 1))
            if k == 2: return rng.choice(["-0", "0", "-0.0", "0e0", "-0E-0", "9223372036854775807", "-9223372036854775808", "18446744073709551615"])
            if k == 3: return repr(rng.uniform(-1e6, 1e6))
            if k == 4: return repr(rng.random() * 10.0 ** rng.randint(-324, 308))
            if k == 5: return "%d.%de%s%d" % (rng.randint(0, 10**rng.randint(1, 20)), rng.randint(0, 10**rng.randint(1, 20)), rng.choice(["", "+", "-"]), rng.randint(0, 30))
            if k == 6: return rng.choice(["4.9e-324", "2.2250738585072011e-308", "1.7976931348623157e308", "9007199254740993", "9007199254740993.0", "0.1", "1e22", "1e23", "1E-999"])
            if k == 7: return "%se%d" % (rng.randint(0, 2**53), rng.randint(-25, 25))
            if k == 8: return "0." + "0" * rng.randint(0, 25) + str(rng.randint(1, 10**rng.randint(1, 19)))
            return "%d.%d" % (rng.randint(-10**6, 10**6), rng.randint(0, 999))
        def ws():
            return rng.choice(["", "", " ", "\n  ", "\t", "\r\n"])
        def value(depth):
            r = rng.randint(0, 9)
            if depth < 4 and r < 2: return "[" + ws() + ",".join(ws() + value(depth + 1) + ws() for _ in range(rng.randint(0, 4))) + "]"
            if depth < 4 and r < 4: return obj(depth + 1, rng.choice([0, 1, 3, 8, 20, 70] if depth == 1 else [0, 2, 4]), False)
            if r < 6: return number()
            if r < 7: return rng.choice(["true", "false"])
            return spell(text())
        def obj(depth, size, nulls):
            shared = rng.choice(SHARED)
            def key():  # random, or over a small alphabet so that long keys differ late
                return shared + (text(short=True) if rng.random() < 0.5 else "".join(rng.choice("ab\u00e9\x00") for _ in range(rng.randint(0, 24))))
            pool = [key() for _ in range(max(1, size // rng.choice([1, 2, 5])))]  # repeated keys
            members = [ws() + spell(rng.choice(pool)) + ws() + ":" + ws() + ("null" if nulls and rng.random() < 0.3 else value(depth)) for _ in range(size)]
            return "{" + ",".join(members) + ws() + "}"
        def canonical(v):
            if v is True: return "t"
            if v is False: return "f"
            if v is None: return "n"
            if isinstance(v, int): return "i%d" % v
            if isinstance(v, float): return "r" + struct.pack(">d", v).hex()
            if isinstance(v, str): return "s" + v.encode().hex()
            if isinstance(v, list): return "[" + ",".join(canonical(x) for x in v) + "]"
            items = sorted((k.encode(), x) for k, x in v.items())
            return "{" + ",".join(k.hex() + ":" + canonical(x) for k, x in items) + "}"
        for i in range(count):
            nulls = i % 3 == 0
            doc = obj(1, rng.choice([1, 5, 40, 65, 300]), nulls)
            with open(f"{out}/{i}.json", "w", encoding="utf-8") as f: f.write(doc)
            objects = []  # every object's members in document order; the root's come last
            json.loads(doc, object_pairs_hook=lambda members: objects.append(members) or dict(members))
            last = {}
            for position, (k, x) in enumerate(objects[-1]): last[k] = (position, x)
            deleted = [k for k, (position, x) in sorted(last.items(), key=lambda item: item[1][0]) if x is None]
            expected = canonical({k: x for k, (position, x) in last.items() if x is not None})
            with open(f"{out}/{i}.expected", "w") as f:
                f.write(expected + "\n" + ",".join(k.encode().hex() for k in deleted) + "\n")
        """#

    /// The canonical form the generator writes: types, exact bits of reals, keys in byte order.
    static func canonical(_ value: PrefValue) -> String {
        func hex<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 { bytes.map { String(format: "%02x", $0) }.joined() }
        switch value {
        case .bool(let b): return b ? "t" : "f"
        case .integer(let i): return "i\(i)"
        case .unsignedInteger(let u): return "i\(u)"
        case .real(let r): return "r" + String(format: "%016llx", r.bitPattern)
        case .string(let s): return "s" + hex(s.utf8)
        case .array(let elements): return "[" + elements.map(canonical).joined(separator: ",") + "]"
        case .dictionary(let d): return "{" + d.map { hex($0.key.utf8) + ":" + canonical($0.value) }.joined(separator: ",") + "}"
        default: return "unexpected \(value)"
        }
    }

    @Test(arguments: [UInt64(20_261_122), TestSeed.run])
    func decodesAsCPythonDoes(seed: UInt64) throws {
        let python = try requireProgram("python3", install: "python3")
        let scratch = try TemporaryDirectory()
        let count = 300
        try scratch.write("gen.py", JSONDifferentialTests.generator)
        let generated = try runProcess(python, [scratch.file("gen.py"), String(seed), String(count), scratch.path])
        try #require(generated.status == 0, "\(TestSeed.reproduce(seed)): \(generated.error)")
        for i in 0..<count {
            let bytes = try Fixtures.bytes(scratch.file("\(i).json"))
            let expected = try String(contentsOfFile: scratch.file("\(i).expected"), encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            let (parsed, _, deleted) = try JSONTextDecoder.parse(bytes, nulls: .rootMembers, duplicates: .lastWins)
            let value = try #require(parsed)
            #expect(JSONDifferentialTests.canonical(value) == expected[0], "\(TestSeed.reproduce(seed)) document \(i)")
            do {
                let imported = try PropertyList.decodeForImport(bytes)
                #expect(imported.format == .json && imported.value == value && imported.deletedKeys == deleted, "\(TestSeed.reproduce(seed)) document \(i)")
            } catch let error as PrefsError {
                #expect(PrefsError.reason(of: error).hasSuffix("is given twice in one object"), "\(TestSeed.reproduce(seed)) document \(i): \(error)")
            }
            #expect(deleted.map { $0.utf8.map { String(format: "%02x", $0) }.joined() }.joined(separator: ",") == expected[1],
                    "\(TestSeed.reproduce(seed)) document \(i): deleted keys")
            if i % 3 != 0 {  // no nulls: plain decoding reads the same
                #expect(JSONDifferentialTests.canonical(try JSONTextDecoder.decode(bytes)) == expected[0], "\(TestSeed.reproduce(seed)) document \(i)")
            }
        }
    }
}
