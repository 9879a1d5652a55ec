// A libFuzzer entry point, compiled into the same module as the PrefsCore sources by
// run-fuzzers.sh with -D FUZZ_<FORMAT>. Besides "never crash, hang or allocate wildly", it checks
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
    _ = try? JSONTextDecoder.validate(bytes)
    guard let (value, format) = try? PropertyList.decode(bytes), format == .json || format == .typedJSON else { return }
    let typed = try! TypedJSON.encode(value)
    precondition(try! PropertyList.decode(typed).value == value, "typed JSON round trip changed the value")
    if let once = try? JSONTextEncoder.encode(value) {
        let again = try! JSONTextDecoder.decode(once)
        precondition(try! JSONTextEncoder.encode(again) == once, "JSON re-encoding is not stable")
    }
    #endif
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    roundTrip(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
