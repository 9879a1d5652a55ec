/// The one entry point to the codecs: decode any document (format detected by content) and encode a
/// value in any format.
package enum PropertyList {
    /// Decodes `bytes`, whatever their format; tells which format it was.
    package static func decode(_ bytes: [UInt8]) throws -> (value: PrefValue, format: PlistFormat) {
        let format = try detect(bytes)
        switch format {
        case .json, .typedJSON:
            let (json, deepest, _) = try JSONTextDecoder.parse(bytes, nulls: .refuse)
            guard let json else { throw PrefsError.internalError("null accepted") }
            if TypedJSON.isTypedDocument(json) { return (try TypedJSON.decode(json), .typedJSON) }
            try JSONTextDecoder.checkDepth(deepest)
            return (json, .json)
        default:
            return (try decode(bytes, as: format), format)
        }
    }

    /// Decodes a document to import: in `format` when given, else in the format its content shows.
    /// JSON may set root members to `null`, which means "delete this key": those keys are returned
    /// apart (a `null` anywhere else is still an error); a key given twice in one object is an
    /// error. Plain JSON named by `format` is read as plain JSON even when it looks like typed JSON.
    package static func decodeForImport(_ bytes: [UInt8], as given: PlistFormat? = nil) throws
        -> (value: PrefValue, format: PlistFormat, deletedKeys: [String])
    {
        let format = try given ?? detect(bytes)
        guard format == .json || format == .typedJSON else { return (try decode(bytes, as: format), format, []) }
        let (parsed, deepest, nullKeys) = try JSONTextDecoder.parse(bytes, nulls: .rootMembers, duplicates: .refuse)
        guard let json = parsed else { throw PrefsError.internalError("null accepted") }
        if given == .typedJSON || (given == nil && TypedJSON.isTypedDocument(json)) {
            guard nullKeys.isEmpty else {
                throw PrefsError.malformed(source: nil, format: .typedJSON, reason: "null has no place in a typed JSON document")
            }
            return (try TypedJSON.decode(json), .typedJSON, [])
        }
        try JSONTextDecoder.checkDepth(deepest)
        return (json, .json, nullKeys)
    }

    /// Decodes `bytes` as `format`, without guessing.
    package static func decode(_ bytes: [UInt8], as format: PlistFormat) throws -> PrefValue {
        switch format {
        case .binary: return try BinaryPlistDecoder.decode(bytes)
        case .xml: return try XMLPlistDecoder.decode(bytes)
        case .openStep: return try OpenStepDecoder.decode(bytes)
        case .json: return try JSONTextDecoder.decode(bytes)
        case .typedJSON:
            let (json, _, _) = try JSONTextDecoder.parse(bytes, nulls: .refuse)
            guard let json else { throw PrefsError.internalError("null accepted") }
            return try TypedJSON.decode(json)
        }
    }

    /// The value of one top-level key of a document whose root must be a dictionary (nil when the
    /// key is absent), and the document's format. The whole document is checked as `decode` checks
    /// it, but binary and XML plists build only the value asked for, so large files read fast.
    package static func lookup(_ key: String, in bytes: UnsafeBufferPointer<UInt8>) throws -> (value: PrefValue?, format: PlistFormat) {
        let format = try detect(bytes)
        switch format {
        case .binary: return (try BinaryPlistDecoder.lookup(key, in: bytes), format)
        case .xml: return (try XMLPlistDecoder.lookup(key, in: bytes), format)
        default:
            let (value, format) = try decode(Array(bytes))
            guard case .dictionary(let root) = value else {
                throw PrefsError.malformed(source: nil, format: format, reason: "the root is \(value.typeNameWithArticle), not a dictionary")
            }
            return (root[key], format)
        }
    }

    /// Checks a document as `lint` does and tells its format: everything `decode` checks, except that
    /// JSON `null` is valid JSON (it only has no property-list value).
    package static func validate(_ bytes: [UInt8]) throws -> PlistFormat {
        let format = try detect(bytes)
        guard format == .json else {
            _ = try decode(bytes, as: format)
            return format
        }
        let (json, deepest, _) = try JSONTextDecoder.parse(bytes, nulls: .skip)
        if let json, TypedJSON.isTypedDocument(json) {
            _ = try decode(bytes, as: .typedJSON)
            return .typedJSON
        }
        try JSONTextDecoder.checkDepth(deepest)
        return .json
    }

    /// The format by content; refuses empty documents and UTF-16/UTF-32 text with a message that
    /// says so rather than a confusing syntax error.
    static func detect(_ bytes: [UInt8]) throws -> PlistFormat {
        try bytes.withUnsafeBufferPointer(detect)
    }

    static func detect(_ bytes: UnsafeBufferPointer<UInt8>) throws -> PlistFormat {
        guard let format = PlistFormat.detect(bytes) else {
            throw PrefsError.malformed(source: nil, format: nil, reason: "empty document")
        }
        if format != .binary && (bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) || bytes.prefix(4).contains(0)) {
            throw PrefsError.malformed(source: nil, format: nil, reason: "UTF-16 or UTF-32 text is not supported (prefs reads UTF-8)")
        }
        return format
    }

    package static func encode(_ value: PrefValue, as format: PlistFormat) throws -> [UInt8] {
        switch format {
        case .binary: return try BinaryPlistEncoder.encode(value)
        case .xml: return try XMLPlistEncoder.encode(value)
        case .openStep: return try OpenStepEncoder.encode(value)
        case .json: return try JSONTextEncoder.encode(value)
        case .typedJSON: return try TypedJSON.encode(value)
        }
    }
}
