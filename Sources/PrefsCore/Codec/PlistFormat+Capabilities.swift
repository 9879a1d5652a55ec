/// What each format can hold, decided here once (as libplist states it beside its codecs): the
/// file store refuses a change its file's format would not give back, `export` a plain JSON
/// document with text standing in for a date or data, and external storage a reference the format
/// cannot spell. The encoders refuse what `.unwritable` names on their own; this table is what the
/// callers ask before encoding, so that a refusal names the key and the way out.
///
/// | value | binary, XML, typed JSON | JSON | OpenStep |
/// |---|---|---|---|
/// | string, array, dictionary | kept | kept | kept |
/// | data | kept | as text (base64) | kept |
/// | integer, real | kept | kept | as text |
/// | bool | kept | kept | unwritable |
/// | date | kept | as text (ISO 8601) | unwritable |
/// | uid | kept (XML: its `CF$UID` dictionary, read back as a UID) | as its `CF$UID` dictionary | unwritable |
extension PlistFormat {
    /// How a document in a format holds one value (a container is held; its elements are judged
    /// one by one).
    package enum Holding: Sendable, Equatable {
        /// Read back as the same value.
        case kept
        /// Written as a string (a date as ISO 8601, data as base64, a number as its decimal
        /// text), and so read back as a string.
        case asText
        /// Written as its `{"CF$UID": n}` dictionary, as CoreFoundation spells a UID outside a
        /// binary plist, and read back as that dictionary: the explicit form `export` writes.
        case asUIDDictionary
        /// Not written at all: the encoder refuses it.
        case unwritable
    }

    /// How a document in this format holds `value` (its type, for a scalar).
    package func holding(_ value: PrefValue) -> Holding {
        switch (self, value) {
        case (.binary, _), (.xml, _), (.typedJSON, _): return .kept
        case (_, .string), (_, .array), (_, .dictionary): return .kept
        case (.json, .date), (.json, .data): return .asText
        case (.json, .uid): return .asUIDDictionary
        case (.json, _): return .kept
        case (.openStep, .data): return .kept
        case (.openStep, .integer), (.openStep, .unsignedInteger), (.openStep, .real): return .asText
        case (.openStep, _): return .unwritable
        }
    }

    /// The first date in `value` (depth first) that a store in this format would not give back as
    /// it was given — in XML, a date with a fraction of a second (XML dates are whole seconds, as
    /// CoreFoundation writes and reads them) — and the path of keys and indexes to it; nil when
    /// there is none. The file store refuses such a change (`FileSuiteStorage.checkDates`), while
    /// `export` to XML writes the whole second, as CoreFoundation does.
    package func firstDateLosingPrecision(in value: PrefValue) -> (path: [String], date: PrefDate)? {
        guard self == .xml else { return nil }
        switch value {
        case .date(let date): return date.hasFractionalSeconds ? ([], date) : nil
        case .array(let elements):
            for (i, element) in elements.enumerated() {
                if let found = firstDateLosingPrecision(in: element) { return ([String(i)] + found.path, found.date) }
            }
            return nil
        case .dictionary(let dictionary):
            for entry in dictionary {
                if let found = firstDateLosingPrecision(in: entry.value) { return ([entry.key] + found.path, found.date) }
            }
            return nil
        default:
            return nil
        }
    }

    /// The format a new suite holding `contents` is written in, when this is the one new suites
    /// take: binary instead of XML when `contents` hold a date with a fraction of a second, so
    /// that the first change reads back as given (an existing XML suite refuses such a date).
    package func forNewSuite(holding contents: PrefDictionary) -> PlistFormat {
        firstDateLosingPrecision(in: .dictionary(contents)) == nil ? self : .binary
    }

    /// Whether a document in this format gives every value in `value` back as it was.
    package func keeps(_ value: PrefValue) -> Bool { firstValue(in: value, where: { $0 != .kept }) == nil }

    /// The first value in `value` (depth first, in order) whose holding `refused` names, and its
    /// key path (`:key:0`, as `PrefKeyPath` writes one; empty for `value` itself); nil when there is none.
    package func firstValue(in value: PrefValue, where refused: (Holding) -> Bool) -> (keyPath: String, value: PrefValue)? {
        firstValue(in: value, path: "", where: refused)
    }

    private func firstValue(in value: PrefValue, path: String, where refused: (Holding) -> Bool) -> (keyPath: String, value: PrefValue)? {
        switch value {
        case .array(let elements):
            for (i, element) in elements.enumerated() {
                if let found = firstValue(in: element, path: path + ":" + String(i), where: refused) { return found }
            }
            return nil
        case .dictionary(let dictionary):
            for entry in dictionary {
                if let found = firstValue(in: entry.value, path: path + ":" + PrefKeyPath.escape(entry.key), where: refused) { return found }
            }
            return nil
        default:
            return refused(holding(value)) ? (path, value) : nil
        }
    }
}
