// The properties the fuzzers check, one per reader. Besides "never crash, hang or allocate wildly",
// each checks the round trip: whatever a decoder accepts, the encoder of that format writes, and
// decoding that gives the same value back (XML: dates at whole seconds; JSON: idempotent re-encoding).
// Only PrefsCore's public interface is used, so the target builds in any configuration.
import PrefsCore

enum FuzzTarget: String, CaseIterable {
    case binary, xml, openstep, json, patch, text

    func check(_ bytes: [UInt8]) {
        switch self {
        case .binary: checkBinary(bytes)
        case .xml: checkXML(bytes)
        case .openstep: checkOpenStep(bytes)
        case .json: checkJSON(bytes)
        case .patch: checkLookupAndPatch(bytes)
        case .text: checkTextSources(bytes)
        }
    }
}

func checkBinary(_ bytes: [UInt8]) {
    guard let value = try? BinaryPlistDecoder.decode(bytes) else { return }
    let again = try! BinaryPlistDecoder.decode(try! BinaryPlistEncoder.encode(value))
    precondition(again == value, "binary round trip changed the value")
}

func checkXML(_ bytes: [UInt8]) {
    guard let value = try? XMLPlistDecoder.decode(bytes) else { return }
    let once = try! XMLPlistEncoder.encode(value)
    let again = try! XMLPlistDecoder.decode(once)
    precondition(try! XMLPlistEncoder.encode(again) == once, "XML round trip changed the value")
}

func checkOpenStep(_ bytes: [UInt8]) {
    guard let value = try? OpenStepDecoder.decode(bytes) else { return }
    let again = try! OpenStepDecoder.decode(try! OpenStepEncoder.encode(value))
    precondition(again == value, "OpenStep round trip changed the value")
}

func checkJSON(_ bytes: [UInt8]) {
    _ = try? PropertyList.validate(bytes)
    guard let (value, format) = try? PropertyList.decode(bytes), format == .json || format == .typedJSON else { return }
    let typed = try! TypedJSON.encode(value)
    precondition(try! PropertyList.decode(typed).value == value, "typed JSON round trip changed the value")
    if let once = try? JSONTextEncoder.encode(value) {
        let again = try! JSONTextDecoder.decode(once)
        precondition(try! JSONTextEncoder.encode(again) == once, "JSON re-encoding is not stable")
    }
    // import's reading agrees with decode: the same value, root nulls only where decode refuses, and
    // a key given twice refused where decode takes the last.
    do {
        let imported = try PropertyList.decodeForImport(bytes)
        if imported.deletedKeys.isEmpty {
            precondition((try? PropertyList.decode(bytes).value) == imported.value, "import read a document differently")
        }
    } catch {
        if case PrefsError.malformed(_, _, let reason) = error, reason.hasSuffix("is given twice in one object") { return }
        precondition((try? PropertyList.decode(bytes)) == nil, "import refused a document decode accepts")
    }
}

/// The migrate text readers never crash, and the migration transforms are idempotent on any text.
func checkTextSources(_ bytes: [UInt8]) {
    for source in [try? INISource.read(bytes), try? DotEnvSource.read(bytes)] {
        guard let source else { continue }
        var target = PrefDictionary()
        var plan = MigrationPlan()
        plan.inferTypes = true
        plan.decodeJSONStrings = true
        _ = Migration.run(plan, source: source.contents, problems: source.problems, target: &target)
        var again = target
        let second = Migration.run(plan, source: target, target: &again, inPlace: true)
        precondition(again == target && second.entries.allSatisfy { $0.outcome == .unchanged }, "migration transforms are not idempotent")
    }
    let text = PrefValue.string(String(decoding: bytes, as: UTF8.self))
    let decoded = Migration.decodingJSONStrings(text)
    precondition(Migration.decodingJSONStrings(decoded) == decoded, "JSON string decoding is not idempotent")
    let inferred = Migration.inferred(text)
    precondition(Migration.inferred(inferred) == inferred, "type inference is not idempotent")
}

/// Reading one key and patching a few must agree with a full decode: whenever the document decodes
/// to a dictionary, a lookup returns that dictionary's value and a patch succeeds with the change
/// applied; whenever it does not decode, a patch refuses it too.
func checkLookupAndPatch(_ bytes: [UInt8]) {
    // As the store reads a file: the format by content (what looks like UTF-16 decodes to nothing,
    // and a patch must refuse it too).
    guard let format = PlistFormat.detect(bytes), format == .xml || format == .binary else { return }
    let root: PrefDictionary?
    if case .dictionary(let d)? = try? PropertyList.decode(bytes).value { root = d } else { root = nil }
    bytes.withUnsafeBufferPointer { buffer in
        if let root, !(format == .binary && hasRepeatedKey(buffer, decodedCount: root.count)) {
            for key in root.keys.prefix(4) + ["absent"] {
                let looked = try? PropertyList.lookup(key, in: buffer).value
                precondition(looked == root[key], "lookup disagrees with decode")
            }
        }
        // The streaming lookup (what a read of a file does), through windows small enough to end
        // inside entries, on one thread and with a second one skipping entries from a third of the
        // way: when it answers, the whole-document lookup gives the same answer.
        for key in (root.map { Array($0.keys.prefix(4)) } ?? []) + ["absent", "CF$UID"] {
            for (bufferSize, split) in [(61, nil), (1 << 17, nil), (61, buffer.count / 3), (1 << 17, buffer.count / 3)] {
                guard case .found(let streamed)? = try? PropertyList.streamedLookup(key, in: buffer, bufferSize: bufferSize, secondThreadFrom: split) else { continue }
                let exact = Result { try PropertyList.lookup(key, in: buffer).value }
                guard case .success(let expected) = exact else { preconditionFailure("a streamed lookup answered where the whole-document one refuses") }
                // A binary plist naming a key twice may give either value to either lookup.
                let eitherValue = format == .binary && (root.map { hasRepeatedKey(buffer, decodedCount: $0.count) } ?? true)
                precondition(eitherValue || streamed == expected, "streamed lookup disagrees with the whole-document one")
            }
        }
        let result = try? TopLevelPatch.apply(to: buffer, keys: ["fuzz", "other"]) { $0["fuzz"] = .string("x"); $0["other"] = nil }
        guard let root else {
            precondition(result == nil, "a patch accepted a document decoding refuses")
            return
        }
        switch result {
        case .patched(let new)?:
            var expected = root
            expected["fuzz"] = "x"
            expected["other"] = nil
            precondition(try! PropertyList.decode(new, as: format) == .dictionary(expected), "patch result differs")
        case .unchanged?:
            precondition(root["fuzz"] == "x" && root["other"] == nil, "patch saw no change")
        case .unsupported?:
            break
        case nil:
            preconditionFailure("a patch refused a document that decodes")
        }
    }
}

/// Whether the top dictionary of a binary plist that decoded names a key twice (decode keeps the
/// last; a lookup may find either): the entry count its marker gives, read here independently of
/// PrefsCore from the trailer and the offset table, is not the decoded dictionary's count.
func hasRepeatedKey(_ bytes: UnsafeBufferPointer<UInt8>, decodedCount: Int) -> Bool {
    guard bytes.count >= 40 else { return false }
    func number(at offset: Int, width: Int) -> Int? {
        guard width > 0, width <= 8, offset >= 0, offset + width <= bytes.count else { return nil }
        let value = bytes[offset..<offset + width].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }
    let trailer = bytes.count - 32
    let offsetSize = Int(bytes[trailer + 6])
    guard let top = number(at: trailer + 16, width: 8), let table = number(at: trailer + 24, width: 8),
        top <= (Int.max - table) / max(offsetSize, 1),
        let start = number(at: table + top * offsetSize, width: offsetSize), start < bytes.count,
        bytes[start] >> 4 == 0xD else { return false }
    var count = Int(bytes[start] & 0xF)
    if count == 0xF {
        guard start + 1 < bytes.count, bytes[start + 1] >> 4 == 0x1,
            let wide = number(at: start + 2, width: 1 << Int(bytes[start + 1] & 0xF)) else { return false }
        count = wide
    }
    return count != decodedCount
}
