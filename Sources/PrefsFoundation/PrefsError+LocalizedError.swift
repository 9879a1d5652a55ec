import Foundation
import PrefsCore

/// A `PrefsError` as Foundation shows errors: `error.localizedDescription` is the one line `prefs`
/// prints for it (`PrefsError.description`), naming the suite, key, path or variable involved —
/// not "The operation could not be completed".
extension PrefsError: LocalizedError {
    /// The library's one-line message, as `"\(error)"` gives it.
    public var errorDescription: String? { description }
}
