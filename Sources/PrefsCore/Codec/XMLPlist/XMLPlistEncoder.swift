/// Writes XML property lists in CoreFoundation's layout (tab indentation, keys in code-point order).
///
/// Text policy: `&`, `<` and `>` are escaped; a carriage return is written `&#13;` so that XML parsers
/// that normalize line ends (expat, libxml2) still read it back; every other character, including the
/// C0 controls macOS itself writes raw (ESC in Terminal's settings), is written as is. XML 1.0 has no
/// legal spelling for those controls; CoreFoundation and prefs read such files, strict XML parsers
/// (CPython's plistlib) refuse them, so use the binary format to hand such values to those tools.
/// Dates are written in whole seconds (the fraction is dropped), as every XML plist reader expects.
/// A UID is written as CoreFoundation writes it, `<dict><key>CF$UID</key><integer>n</integer></dict>`,
/// so a real dictionary of that one shape cannot be written (it would read back as a UID).
package enum XMLPlistEncoder {
    package static func encode(_ value: PrefValue) throws -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(4096)
        out.append(contentsOf: #"""
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">

            """#.utf8)
        try write(value, depth: 0, to: &out)
        out.append(contentsOf: "</plist>\n".utf8)
        return out
    }

    static func indent(_ depth: Int, _ out: inout [UInt8]) {
        for _ in 0..<depth { out.append(0x09) }
    }

    static func element(_ name: StaticString, _ text: String, depth: Int, _ out: inout [UInt8]) {
        indent(depth, &out)
        out.append(UInt8(ascii: "<"))
        out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        out.append(UInt8(ascii: ">"))
        appendEscaped(text, &out)
        out.append(contentsOf: "</".utf8)
        out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        out.append(contentsOf: ">\n".utf8)
    }

    static func write(_ value: PrefValue, depth: Int, to out: inout [UInt8]) throws {
        switch value {
        case .string(let s): element("string", s, depth: depth, &out)
        case .integer(let i): element("integer", String(i), depth: depth, &out)
        case .unsignedInteger(let u): element("integer", String(u), depth: depth, &out)
        case .real(let r): element("real", realText(r), depth: depth, &out)
        case .bool(let b):
            indent(depth, &out)
            out.append(contentsOf: (b ? "<true/>\n" : "<false/>\n").utf8)
        case .date(let d):
            try EncodingChecks.date(value, format: .xml)
            element("date", d.iso8601(wholeSeconds: true), depth: depth, &out)
        case .data(let bytes):
            indent(depth, &out)
            out.append(contentsOf: "<data>\n".utf8)
            var encoded = [UInt8]()
            Base64.encode(bytes, into: &encoded)
            var start = 0
            while start < encoded.count {
                let end = min(start + 76, encoded.count)
                indent(depth, &out)
                out.append(contentsOf: encoded[start..<end])
                out.append(0x0A)
                start = end
            }
            indent(depth, &out)
            out.append(contentsOf: "</data>\n".utf8)
        case .uid(let u):
            indent(depth, &out)
            out.append(contentsOf: "<dict>\n".utf8)
            element("key", "CF$UID", depth: depth + 1, &out)
            element("integer", String(u), depth: depth + 1, &out)
            indent(depth, &out)
            out.append(contentsOf: "</dict>\n".utf8)
        case .array(let elements):
            try EncodingChecks.depth(depth, format: .xml)
            indent(depth, &out)
            guard !elements.isEmpty else { out.append(contentsOf: "<array/>\n".utf8); return }
            out.append(contentsOf: "<array>\n".utf8)
            for (i, element) in elements.enumerated() {
                try PrefKeyPath.locating(String(i)) { try write(element, depth: depth + 1, to: &out) }
            }
            indent(depth, &out)
            out.append(contentsOf: "</array>\n".utf8)
        case .dictionary(let dictionary):
            try EncodingChecks.depth(depth, format: .xml)
            if dictionary.count == 1, dictionary[0].key == "CF$UID", XMLPlistParser.uidNumber(dictionary[0].value) != nil {
                throw PrefsError.unrepresentable(format: .xml, keyPath: "",
                    reason: "a dictionary whose only key is CF$UID, with an integer, reads back as a UID from XML (use the binary format)")
            }
            indent(depth, &out)
            guard !dictionary.isEmpty else { out.append(contentsOf: "<dict/>\n".utf8); return }
            out.append(contentsOf: "<dict>\n".utf8)
            for entry in dictionary {
                element("key", entry.key, depth: depth + 1, &out)
                try PrefKeyPath.locating(entry.key) { try write(entry.value, depth: depth + 1, to: &out) }
            }
            indent(depth, &out)
            out.append(contentsOf: "</dict>\n".utf8)
        }
    }

    /// Shortest round-trip digits; `nan`, `+infinity`, `-infinity` as CoreFoundation writes them.
    static func realText(_ r: Double) -> String {
        if r.isNaN { return "nan" }
        if r.isInfinite { return r > 0 ? "+infinity" : "-infinity" }
        return r.description
    }

    static func appendEscaped(_ string: String, _ out: inout [UInt8]) {
        var s = string
        s.withUTF8 { text in
            var mark = 0
            for (i, c) in text.enumerated() {
                let replacement: StaticString
                switch c {
                case UInt8(ascii: "&"): replacement = "&amp;"
                case UInt8(ascii: "<"): replacement = "&lt;"
                case UInt8(ascii: ">"): replacement = "&gt;"
                case 0x0D: replacement = "&#13;"
                default: continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: text[mark..<i]))
                out.append(contentsOf: UnsafeBufferPointer(start: replacement.utf8Start, count: replacement.utf8CodeUnitCount))
                mark = i + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: text[mark...]))
        }
    }
}
