extension SuiteStore {
    /// `-json @FILE` (`@-`: standard input): the JSON or typed JSON document a file holds, read whole
    /// (a document is decoded in memory anyway); errors name the file.
    func jsonDocument(from source: String, domain: String, key: String) throws -> PrefValue {
        let name = DocumentInput.name(of: source)
        do {
            return try PropertyList.decode(try DocumentInput(fileSystem: fileSystem).bytes(from: source), as: .json).typedIfMarked()
        } catch let error as PrefsError {
            switch error {
            case .malformed: throw PrefsError.invalidDocument(domain: domain, key: key, what: "-json @\(source)", error: error.attributed(to: name))
            default: throw error
            }
        }
    }

    /// A write request with every value from a file read in, for a place that keeps its values
    /// inline (registered defaults): `register KEY -data @FILE`, `-string-file`, `-json @FILE`.
    func readingFilesInline(_ request: WriteRequest, for target: SuiteTarget) throws -> WriteRequest {
        var options = WriteOptions()
        options.placement = .inline
        var prewritten: [PendingBlob] = []
        return try readFiles(request, target: target, options: options, prewritten: &prewritten)
    }
}
