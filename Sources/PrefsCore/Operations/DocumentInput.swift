/// A document a verb reads: a file, or standard input (`-`), decoded by its content or as told.
public struct DocumentInput: Sendable {
    public let fileSystem: any FileSystem

    public init(fileSystem: any FileSystem) { self.fileSystem = fileSystem }

    /// How messages name a source.
    public static func name(of source: String) -> String { source == "-" ? "standard input" : source }

    /// The bytes of a file or of standard input (`-`).
    public func bytes(from source: String) throws -> [UInt8] {
        source == "-" ? try StandardInput.read() : try fileSystem.contents(of: source)
    }

    /// The dictionary a document holds, decoded by its content (or by `decode`); errors, and a root
    /// that is not a dictionary, name the source.
    public func dictionary(from source: String, decode: ([UInt8]) throws -> PrefValue = { try PropertyList.decode($0).value }) throws -> PrefDictionary {
        let name = DocumentInput.name(of: source)
        let value: PrefValue
        do {
            value = try decode(try bytes(from: source))
        } catch let error as PrefsError {
            throw error.attributed(to: name)
        }
        guard case .dictionary(let dictionary) = value else {
            throw PrefsError.malformed(source: name, format: nil, reason: "the root is \(value.typeNameWithArticle), not a dictionary")
        }
        return dictionary
    }

    /// A document for `import`: a dictionary, and the keys a JSON `null` member deletes.
    public func importable(from source: String, format: PlistFormat?) throws -> (contents: PrefDictionary, deleted: [String]) {
        var deleted: [String] = []
        let contents = try dictionary(from: source) { bytes in
            let document = try PropertyList.decodeForImport(bytes, as: format)
            deleted = document.deletedKeys
            return document.value
        }
        return (contents, deleted)
    }
}
