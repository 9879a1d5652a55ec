import Foundation
import Testing
@testable import PrefsCore
import PrefsTestSupport

/// CPython's plistlib as an oracle: it writes random documents in both plist formats, PrefsCore
/// decodes them, re-encodes them in both formats, and plistlib reads ours back and compares.
@Suite(.serialized) struct PlistlibDifferentialTests {
    static let generator = #"""
        import datetime, plistlib, random, sys
        seed, count, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
        rng = random.Random(seed)
        POOLS = [(0x20, 0x7E), (0xA0, 0x24F), (0x3040, 0x30FF), (0x1F600, 0x1F64F), (0x10000, 0x10FFFF), (0x09, 0x0A)]
        def text():
            out = []
            for _ in range(rng.randint(0, 12)):
                lo, hi = rng.choice(POOLS)
                c = rng.randint(lo, hi)
                if 0xD800 <= c <= 0xDFFF: continue
                out.append(chr(c))
            return "".join(out)
        def date():
            d = datetime.datetime(1, 1, 1) + datetime.timedelta(days=rng.randint(0, 3652058), seconds=rng.randint(0, 86399))
            return d + datetime.timedelta(microseconds=15625 * rng.randint(0, 63))  # exact binary fractions
        def scalar(binary):
            k = rng.randint(0, 10)
            if k == 0: return rng.randint(-300, 300)
            if k == 1: return rng.randint(-2**63, 2**63 - 1)
            if k == 2: return rng.randint(0, 2**64 - 1)
            if k == 3: return rng.choice([0.0, -0.0, float("inf"), float("-inf"), float("nan"), 0.1, 1e300, 5e-324, rng.uniform(-1e9, 1e9)])
            if k == 4: return rng.random() < 0.5
            if k == 5: return date()
            if k == 6: return bytes(rng.randint(0, 255) for _ in range(rng.randint(0, 40)))
            if k == 7 and binary: return plistlib.UID(rng.randint(0, 2**32))
            return text()
        def value(binary, depth):
            r = rng.randint(0, 9)
            if depth < 4 and r < 2: return [value(binary, depth + 1) for _ in range(rng.randint(0, 6))]
            if depth < 4 and r < 4: return {text(): value(binary, depth + 1) for _ in range(rng.randint(0, 8))}
            return scalar(binary)
        for i in range(count):
            for fmt, binary in (("xml", False), ("bin", True)):
                doc = {text(): value(binary, 1) for _ in range(rng.randint(1, 10))}
                with open(f"{out}/{i}.{fmt}", "wb") as f:
                    f.write(plistlib.dumps(doc, fmt=plistlib.FMT_BINARY if binary else plistlib.FMT_XML))
        """#

    static let checker = #"""
        import datetime, math, plistlib, sys
        count, out = int(sys.argv[1]), sys.argv[2]
        def same(a, b, xml):
            # XML has no UID: CoreFoundation (and prefs) write {"CF$UID": n}, which plistlib reads as a dict.
            if isinstance(a, plistlib.UID) and xml: return b == {"CF$UID": a.data}
            if type(a) is not type(b): return False
            if isinstance(a, float): return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
            if isinstance(a, datetime.datetime):
                return (a.replace(microsecond=0) == b.replace(microsecond=0)) if xml else a == b
            if isinstance(a, list): return len(a) == len(b) and all(same(x, y, xml) for x, y in zip(a, b))
            if isinstance(a, dict): return a.keys() == b.keys() and all(same(a[k], b[k], xml) for k in a)
            return a == b
        failures = 0
        for i in range(count):
            for source in ("xml", "bin"):
                original = plistlib.loads(open(f"{out}/{i}.{source}", "rb").read())
                for ours in ("xml", "bin"):
                    path = f"{out}/{i}.{source}.ours.{ours}"
                    back = plistlib.loads(open(path, "rb").read())
                    if not same(original, back, source == "xml" or ours == "xml"):
                        failures += 1
                        print(f"mismatch: {path}")
        sys.exit(1 if failures else 0)
        """#

    @Test(arguments: [UInt64(20_261_122), TestSeed.run])
    func plistlibReadsWhatWeWriteFromWhatItWrote(seed: UInt64) throws {
        let python = try requireProgram("python3", install: "python3")
        let scratch = try TemporaryDirectory()
        let count = 150
        try scratch.write("gen.py", Array(PlistlibDifferentialTests.generator.utf8))
        try scratch.write("check.py", Array(PlistlibDifferentialTests.checker.utf8))
        let generated = try runProcess(python, [scratch.file("gen.py"), String(seed), String(count), scratch.path])
        try #require(generated.status == 0, "\(TestSeed.reproduce(seed)): \(generated.error)")
        for i in 0..<count {
            let fromXML = try XMLPlistDecoder.decode(try Fixtures.bytes(scratch.file("\(i).xml")))
            let fromBinary = try BinaryPlistDecoder.decode(try Fixtures.bytes(scratch.file("\(i).bin")))
            for (name, value) in [("xml", fromXML), ("bin", fromBinary)] {
                try scratch.write("\(i).\(name).ours.xml", try XMLPlistEncoder.encode(value))
                try scratch.write("\(i).\(name).ours.bin", try BinaryPlistEncoder.encode(value))
                #expect(try value.roundTripped(.typedJSON) == value, "\(TestSeed.reproduce(seed)), document \(i).\(name)")
            }
        }
        let checked = try runProcess(python, [scratch.file("check.py"), String(count), scratch.path])
        #expect(checked.status == 0, "\(TestSeed.reproduce(seed)): \(checked.outputText.prefix(2000)) \(checked.error.prefix(2000))")
    }
}

/// libplist's `plistutil` as a second oracle: it converts our binary output to XML and plistlib's XML
/// to binary, and we compare. libplist 2.2.0 has known lossy spots, tolerated here and only here: it
/// writes −0.0 as 0.0 and rounds date fractions to the nearest second (up as well as down).
@Suite(.serialized) struct PlistutilDifferentialTests {
    static func similar(_ a: PrefValue, _ b: PrefValue) -> Bool {
        switch (a, b) {
        case let (.real(x), .real(y)): return PrefValue.sameReal(x, y) || (x == 0 && y == 0)
        case let (.date(x), .date(y)): return abs(x.secondsSinceReferenceDate - y.secondsSinceReferenceDate) <= 1
        case let (.array(x), .array(y)): return x.count == y.count && zip(x, y).allSatisfy { similar($0, $1) }
        case let (.dictionary(x), .dictionary(y)):
            return x.keys == y.keys && zip(x, y).allSatisfy { similar($0.value, $1.value) }
        default: return a == b
        }
    }

    @Test func libplistAgrees() throws {
        let plistutil = try requireProgram("plistutil", install: "apt-get install libplist-utils")
        let python = try requireProgram("python3", install: "python3")
        let scratch = try TemporaryDirectory()
        let seed = TestSeed.run, count = 40
        try scratch.write("gen.py", Array(PlistlibDifferentialTests.generator.utf8))
        let generated = try runProcess(python, [scratch.file("gen.py"), String(seed), String(count), scratch.path])
        try #require(generated.status == 0, "\(TestSeed.reproduce(seed)): \(generated.error)")
        for i in 0..<count {
            let binary = try BinaryPlistDecoder.decode(try Fixtures.bytes(scratch.file("\(i).bin")))
            try scratch.write("\(i).ours.bin", try BinaryPlistEncoder.encode(binary))
            let converted = try runProcess(plistutil, ["-i", scratch.file("\(i).ours.bin"), "-o", scratch.file("\(i).lib.xml")])
            try #require(converted.status == 0, "\(TestSeed.reproduce(seed)) document \(i): \(converted.error)")
            let viaLibplist = try XMLPlistDecoder.decode(try Fixtures.bytes(scratch.file("\(i).lib.xml")))
            #expect(PlistutilDifferentialTests.similar(viaLibplist, RoundTripTests.xmlMapping(binary)), "\(TestSeed.reproduce(seed)) document \(i).bin")

            let xml = try XMLPlistDecoder.decode(try Fixtures.bytes(scratch.file("\(i).xml")))
            let back = try runProcess(plistutil, ["-i", scratch.file("\(i).xml"), "-o", scratch.file("\(i).lib.bin")])
            try #require(back.status == 0, "\(TestSeed.reproduce(seed)) document \(i): \(back.error)")
            let fromLibplist = try BinaryPlistDecoder.decode(try Fixtures.bytes(scratch.file("\(i).lib.bin")))
            #expect(PlistutilDifferentialTests.similar(fromLibplist, xml), "\(TestSeed.reproduce(seed)) document \(i).xml")
        }
    }
}
