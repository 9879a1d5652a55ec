// A libFuzzer entry point, compiled into the same module as the PrefsCore sources by
// run-fuzzers.sh with -D FUZZ_<TARGET> (BINARY, XML, OPENSTEP, JSON, PATCH, TEXT). Besides "never crash, hang or allocate wildly", it checks
// the round trip: whatever a decoder accepts, the encoder of that format writes, and decoding that
// gives the same value back (XML: dates at whole seconds; JSON: idempotent re-encoding).

func roundTrip(_ bytes: [UInt8]) {
    #if FUZZ_BINARY
    guard let value = try? BinaryPlistDecoder.decode(bytes) else { return }
    let again = try! BinaryPlistDecoder.decode(try! BinaryPlistEncoder.encode(value))
    precondition(again == value, "binary round trip changed the value")
    #elseif FUZZ_XML
    guard let value = try? XMLPlistDecoder.decode(bytes) else { return }
    let once = try! XMLPlistEncoder.encode(value)
    let again = try! XMLPlistDecoder.decode(once)
    precondition(try! XMLPlistEncoder.encode(again) == once, "XML round trip changed the value")
    #elseif FUZZ_OPENSTEP
    guard let value = try? OpenStepDecoder.decode(bytes) else { return }
    let again = try! OpenStepDecoder.decode(try! OpenStepEncoder.encode(value))
    precondition(again == value, "OpenStep round trip changed the value")
    #elseif FUZZ_JSON
    _ = try? PropertyList.validate(bytes)
    guard let (value, format) = try? PropertyList.decode(bytes), format == .json || format == .typedJSON else { return }
    let typed = try! TypedJSON.encode(value)
    precondition(try! PropertyList.decode(typed).value == value, "typed JSON round trip changed the value")
    if let once = try? JSONTextEncoder.encode(value) {
        let again = try! JSONTextDecoder.decode(once)
        precondition(try! JSONTextEncoder.encode(again) == once, "JSON re-encoding is not stable")
    }
    // import's reading agrees with decode: the same value, and root nulls only where decode refuses.
    if let imported = try? PropertyList.decodeForImport(bytes) {
        if imported.deletedKeys.isEmpty {
            precondition((try? PropertyList.decode(bytes).value) == imported.value, "import read a document differently")
        }
    } else {
        precondition((try? PropertyList.decode(bytes)) == nil, "import refused a document decode accepts")
    }
    #elseif FUZZ_PATCH
    checkLookupAndPatch(bytes)
    #elseif FUZZ_TEXT
    checkTextSources(bytes)
    #endif
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
    // As the store reads a file: the format by content, refusing what looks like UTF-16.
    guard let format = try? PropertyList.detect(bytes), format == .xml || format == .binary else { return }
    let root: PrefDictionary?
    if case .dictionary(let d)? = try? PropertyList.decode(bytes).value { root = d } else { root = nil }
    bytes.withUnsafeBufferPointer { buffer in
        if let root, !hasRepeatedKey(buffer, format: format) {
            for key in root.keys.prefix(4) + ["absent"] {
                let looked = try? PropertyList.lookup(key, in: buffer).value
                precondition(looked == root[key], "lookup disagrees with decode")
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

/// Whether the top dictionary names a key twice (decode keeps the last; a binary lookup may find
/// either).
func hasRepeatedKey(_ bytes: UnsafeBufferPointer<UInt8>, format: PlistFormat) -> Bool {
    guard format == .binary, var parser = try? BinaryPlistParser(bytes, decodingWhole: false),
        let start = try? parser.offset(of: parser.topObject),
        case .dictionary(let count, _)? = try? parser.object(ref: parser.topObject, at: start),
        case .dictionary(let d)? = try? parser.value(ref: parser.topObject, depth: 0).value
    else { return false }
    return d.count != count
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    roundTrip(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
