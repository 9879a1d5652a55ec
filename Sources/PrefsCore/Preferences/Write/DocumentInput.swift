/// A document a verb reads: a file, or standard input (`-`), decoded by its content or as told.
package struct DocumentInput: Sendable {
    package let fileSystem: any FileSystem

    package init(fileSystem: any FileSystem) { self.fileSystem = fileSystem }

    /// How messages name a source.
    package static func name(of source: String) -> String { source == "-" ? "standard input" : source }

    /// The largest document read whole (`import`, `migrate`, `register`, `lint`, `-json @FILE`…).
    package static let maximumSize = 256 << 20

    /// The bytes of a file or of standard input (`-`), of any kind (a pipe, a FIFO, a device): at
    /// most `limit`, checked as they are read, so a source that never ends is refused (65) once
    /// more came; `what` names the kind of document in that message.
    package func bytes(from source: String, atMost limit: Int = DocumentInput.maximumSize, what: String = "document") throws -> [UInt8] {
        guard source == "-" else { return try fileBytes(source, atMost: limit, what: what) }
        let bytes = try StandardInput.read(atMost: limit)
        guard bytes.count <= limit else { throw DocumentInput.tooLarge(DocumentInput.name(of: source), limit: limit, what: what) }
        return bytes
    }

    /// `bytes(from:atMost:what:)` of a file (`-` is a file named so).
    package func fileBytes(_ path: String, atMost limit: Int = DocumentInput.maximumSize, what: String = "document") throws -> [UInt8] {
        let bytes = try fileSystem.contents(of: path, atMost: limit)
        guard bytes.count <= limit else { throw DocumentInput.tooLarge(path, limit: limit, what: what) }
        return bytes
    }

    /// A document larger than the most it may be (a whole number of MiB, or of KiB).
    package static func tooLarge(_ name: String, limit: Int, what: String) -> PrefsError {
        let size = limit % (1 << 20) == 0 ? "\(limit >> 20) MiB" : "\(limit >> 10) KiB"
        return .malformed(source: name, format: nil, reason: "\(what): larger than \(size)")
    }

    /// The dictionary a document holds, decoded by its content (or by `decode`); errors, and a root
    /// that is not a dictionary, name the source.
    package func dictionary(from source: String, decode: ([UInt8]) throws -> PrefValue = { try PropertyList.decode($0).value }) throws -> PrefDictionary {
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
    package func importable(from source: String, format: PlistFormat?) throws -> (contents: PrefDictionary, deleted: [String]) {
        var deleted: [String] = []
        let contents = try dictionary(from: source) { bytes in
            let document = try PropertyList.decodeForImport(bytes, as: format)
            deleted = document.deletedKeys
            return document.value
        }
        return (contents, deleted)
    }
}
