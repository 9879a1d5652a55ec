import PrefsCore

/// A string's or data value's bytes exactly, with no newline (`--raw`).
struct RawPrinter: ValuePrinter {
    let form: OutputForm
    let context: CommandContext

    /// A string's UTF-8 or data's bytes; any other value has no raw form (typeMismatch, 65).
    func value(_ value: PrefValue, _ place: ValuePlace, origin: String?) throws {
        switch value {
        case .string(let string): write(string)
        case .data(let bytes): context.writeOutput(bytes)
        default:
            throw PrefsError.typeMismatch(domain: place.domain, key: place.key ?? "",
                                          reason: "--raw prints strings and data, and the value is \(value.typeNameWithArticle)")
        }
    }

    /// The bytes as the store gave them; a blob streams to standard output when it is a real descriptor.
    func raw(_ raw: RawValue) throws {
        switch raw {
        case .bytes(let bytes): context.writeOutput(bytes)
        case .blob(let blob):
            if let descriptor = context.outputDescriptor { try blob.copy(toOutput: descriptor) } else { context.writeOutput(try blob.bytes()) }
        }
    }
}
