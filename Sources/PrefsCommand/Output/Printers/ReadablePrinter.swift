import PrefsCore

/// The readable form: a scalar bare on one line (for `$(…)`), a container in the readable text form,
/// one line per item of a list (ended by a NUL byte with `--null`), fields separated by tabs.
struct ReadablePrinter: ValuePrinter {
    let form: OutputForm
    let context: CommandContext

    /// `ORIGIN<tab>VALUE` with `--origin`.
    func value(_ value: PrefValue, _ place: ValuePlace, origin: String?) throws {
        let text = ValueOutput.text(value, abbreviatingData: place.wholeSuite)
        context.writeOutput(origin.map { Array(($0 + "\t").utf8) + text } ?? text)
    }

    /// `ORIGIN<tab>KEY<tab>VALUE`, the value on one line (large data abbreviated).
    func entries(_ entries: [OriginEntry], _ place: ValuePlace) throws {
        write(entries.map { "\($0.origin)\t\(ValueOutput.quotedIfNeeded($0.key))\t\(ValueOutput.line($0.value, abbreviatingData: true))\n" }.joined())
    }

    /// An external string or data value in its bare form, streamed from its blob (checked as it
    /// goes: a damaged blob fails at its end, after what came before was printed): a string's
    /// bytes, or data as hexadecimal, then a newline.
    func blob(_ blob: Blob, origin: String?) throws {
        if let origin { write(origin + "\t") }
        let digits = Array("0123456789abcdef".utf8)
        try blob.forEachChunk { chunk in
            if let failure = context.outputFailure() { throw PrefsError.outputFailed(errno: failure) }
            guard blob.kind == .data else { return context.writeOutput(Array(chunk)) }
            var hex = [UInt8](repeating: 0, count: chunk.count * 2)
            for (i, byte) in chunk.enumerated() {
                hex[2 * i] = digits[Int(byte >> 4)]
                hex[2 * i + 1] = digits[Int(byte & 0xF)]
            }
            context.writeOutput(hex)
        }
        context.writeOutput([0x0A])
    }

    /// `SUITE` for a suite's name, `SUITE<tab>KEY` for a key or value; with deadlines
    /// `SUITE<tab>KEY<tab>DEADLINE (in …)`.
    func matches(_ matches: [FindMatch], deadlines: Bool) throws {
        write(matches.map { match -> String in
            guard deadlines else { return match.suite + (match.key.map { "\t" + $0.display } ?? "") + end }
            guard case .date(let date)? = match.value else { return "" }
            return match.suite + "\t" + (match.key?.display ?? "") + "\t" + Expiry.describe(date) + end
        }.joined())
    }

    /// `KEY OLD -> NEW` per change (`WatchOutput.line`).
    func changes(_ changes: [WatchChange], in domain: Domain) {
        write(changes.map { WatchOutput.line($0) + "\n" }.joined())
    }

    /// `VERSION<tab>TIME<tab>USER@HOST<tab>VERB<tab>KEYS`, the keys space-separated and quoted where
    /// needed; a field holding a control character escaped (`field`), so a version is one line.
    func versions(_ versions: [SuiteVersion]) throws {
        write(versions.map { version in
            let keys = version.keys.map(ValueOutput.quotedIfNeeded).joined(separator: " ")
            return [String(version.number), LocksCommand.utc(version.time), Self.field(version.user + "@" + version.host), Self.field(version.verb), keys]
                .joined(separator: "\t") + "\n"
        }.joined())
    }

    func words(_ words: [String]) { write(words.map { $0 + end }.joined()) }

    /// A field of a tab-separated line: with a control character (a tab or newline in `$USER`),
    /// every byte not printable ASCII as `\xHH`, so one line stays one line.
    static func field(_ text: String) -> String {
        text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0 == "\\" } ? ByteText.escaped(Array(text.utf8)) : text
    }
}
