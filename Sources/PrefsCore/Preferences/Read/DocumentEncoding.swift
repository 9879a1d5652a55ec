/// How `export` and `read --format` write a value as a document of its own: in a format (by its
/// name, or a file's extension), honest about what the format loses. Plain JSON has no dates or
/// data: a value holding one is refused, naming the key, unless `lossy` (then a date is an ISO 8601
/// string and data base64, as `read --json` shows them) — as `plutil -convert json` refuses.
/// `compact` writes JSON on one line.
package struct DocumentEncoding: Sendable {
    package var format: PlistFormat
    package var lossy: Bool
    package var compact: Bool

    /// Checks that the options fit the format (`--lossy` and `--compact` are for JSON).
    package init(format: PlistFormat, lossy: Bool = false, compact: Bool = false) throws {
        if lossy && format != .json {
            throw PrefsError.usage("--lossy is for --format json (\(format.rawValue) loses nothing it can write)")
        }
        if compact && format != .json && format != .typedJSON {
            throw PrefsError.usage("--compact is for --format json and typed-json, not \(format.rawValue)")
        }
        self.format = format
        self.lossy = lossy
        self.compact = compact
    }

    package func encode(_ value: PrefValue) throws -> [UInt8] {
        switch format {
        case .json:
            if !lossy, let (path, lost) = PlistFormat.json.firstValue(in: value, where: { $0 == .asText }) {
                throw PrefsError.unrepresentable(format: .json, keyPath: path,
                    reason: "JSON has no \(lost.typeName) type; --format typed-json keeps every type, --lossy writes it as a string")
            }
            return try JSONTextEncoder.encode(value, pretty: !compact)
        case .typedJSON:
            return try TypedJSON.encode(value, pretty: !compact)
        default:
            return try PropertyList.encode(value, as: format)
        }
    }
}
