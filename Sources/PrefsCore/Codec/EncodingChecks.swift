/// What every encoder refuses to write.
enum EncodingChecks {
    /// Containers nested deeper than decoders accept are not written either.
    static func depth(_ depth: Int, format: PlistFormat, limit: Int = DecodingLimits.maxDepth) throws {
        guard depth < limit else {
            throw PrefsError.unrepresentable(format: format, keyPath: "", reason: "containers nested deeper than \(DecodingLimits.maxDepth) levels")
        }
    }

    /// Dates outside 0001–9999 (or NaN) exist only if built in code; no format may write them.
    static func date(_ value: PrefValue, format: PlistFormat) throws {
        if case .date(let date) = value, !date.isInSupportedRange {
            throw PrefsError.unrepresentable(format: format, keyPath: "", reason: "date outside the years 0001–9999")
        }
    }
}
