import PrefsCore

/// What `prefs: <message>` shows for an error: the library's own sentence (`PrefsError.description`,
/// `Sources/PrefsCore/Errors/PrefsError+Description.swift`), so a Swift program and the command say
/// the same.
extension PrefsError {
    var message: String { description }
}
