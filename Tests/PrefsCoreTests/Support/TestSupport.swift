@_exported import PrefsTestSupport
@testable import PrefsCore

extension PrefValue {
    /// The value encoded in `format` and decoded again.
    func roundTripped(_ format: PlistFormat) throws -> PrefValue {
        try PropertyList.decode(try PropertyList.encode(self, as: format), as: format)
    }
}

extension PrefDate {
    /// The date at the start of this one's second (what an XML plist keeps).
    var truncatedToSecond: PrefDate {
        PrefDate(secondsSinceReferenceDate: secondsSinceReferenceDate.rounded(.down))
    }
}
