/// Key paths in PlistBuddy form (`:Window:Frames:0`), as encoders report where a value is that they
/// cannot write. The path is built only while an error unwinds, so encoding pays nothing for it.
enum KeyPath {
    /// Runs `body`; an `unrepresentable` error escaping it gets `component` prepended to its path.
    @inline(__always)
    static func locating<T>(_ component: String, _ body: () throws -> T) rethrows -> T {
        do {
            return try body()
        } catch PrefsError.unrepresentable(let format, let path, let reason) {
            throw PrefsError.unrepresentable(format: format, keyPath: ":" + escape(component) + path, reason: reason)
        }
    }

    /// A `:` inside a component is written `\:` and a backslash `\\`.
    static func escape(_ component: String) -> String {
        guard component.contains(where: { $0 == ":" || $0 == "\\" }) else { return component }
        var escaped = ""
        for character in component {
            if character == ":" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

}

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
