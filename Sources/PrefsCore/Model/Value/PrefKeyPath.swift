/// Where a value is inside a suite. A KEY argument that starts with `:` is a path in PlistBuddy form
/// (`:Window:Frames:0`): components separated by `:`, with `\:` for a colon, `\\` for a backslash and
/// `\0` for NUL inside a component, and a decimal index for an array element. Any other KEY is one
/// literal top-level key, so keys with dots, spaces or colons in the middle work as on macOS.
public struct PrefKeyPath: Equatable, Hashable, Sendable {
    public var components: [String]

    /// Keys compare by their bytes, as dictionary keys do: NFC and NFD spellings are two keys.
    public static func == (lhs: PrefKeyPath, rhs: PrefKeyPath) -> Bool {
        lhs.components.count == rhs.components.count
            && zip(lhs.components, rhs.components).allSatisfy { $0.utf8.elementsEqual($1.utf8) }
    }

    public func hash(into hasher: inout Hasher) {
        for component in components {
            hasher.combine(component.utf8.count)
            for byte in component.utf8 { hasher.combine(byte) }
        }
    }

    public init(_ components: [String]) { self.components = components }

    /// Parses a KEY argument. Empty keys, NUL, an empty path or an empty component are usage errors;
    /// with `allowingEmpty`, the empty argument is the empty top-level key (so `delete` and `reset`
    /// can remove one another program stored).
    /// `domain` names the domain in an error.
    public init(argument: String, in domain: String? = nil, allowingEmpty: Bool = false) throws {
        func refuse(_ reason: String) -> PrefsError { .badName(domain: domain, name: argument, reason: reason) }
        if argument.isEmpty && allowingEmpty {
            components = [""]
            return
        }
        guard !argument.isEmpty else { throw refuse("the key is empty") }
        guard !argument.utf8.contains(0) else { throw refuse("a key cannot contain NUL") }
        guard argument.hasPrefix(":") else {
            components = [argument]
            return
        }
        // By Unicode scalars, not Characters: a combining mark after ":" would otherwise join it.
        var parts: [String] = []
        var current = String.UnicodeScalarView()
        var escaping = false
        for scalar in argument.unicodeScalars.dropFirst() {
            if escaping {
                current.append(scalar == "0" ? "\u{0}" : scalar)
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else if scalar == ":" {
                parts.append(String(current))
                current = String.UnicodeScalarView()
            } else {
                current.append(scalar)
            }
        }
        guard !escaping else { throw refuse("key path \(argument) ends with a lone backslash") }
        parts.append(String(current))
        guard !parts.contains(where: \.isEmpty) else {
            throw refuse("key path \(argument) has an empty component")
        }
        guard parts.count <= DecodingLimits.maxDepth else {
            throw refuse("key path has more than \(DecodingLimits.maxDepth) components")
        }
        components = parts
    }

    /// Refuses a path that names no value inside a suite (`.badName`, 64), as a KEY argument is
    /// refused: no component (`PrefKeyPath([])`), or more than `DecodingLimits.maxDepth` (no
    /// document holds values that deep). Every verb taking a path checks it before reading.
    package func check(in domain: String?) throws {
        guard !components.isEmpty else { throw PrefsError.badName(domain: domain, name: "", reason: "the key path is empty") }
        guard components.count <= DecodingLimits.maxDepth else {
            throw PrefsError.badName(domain: domain, name: PrefKeyPath(Array(components.prefix(3))).pathForm + "…",
                                     reason: "key path has more than \(DecodingLimits.maxDepth) components")
        }
    }

    /// The top-level key (the first component; "" for a path that `check` refuses).
    public var first: String { components.first ?? "" }

    /// A one-component path reads as the plain key (unless that starts with `:` or holds NUL); a
    /// longer one in `:a:b` form. Either spelling, given back as a KEY argument, names the same value.
    public var display: String {
        components.count == 1 && !components[0].hasPrefix(":") && !components[0].utf8.contains(0) ? components[0] : pathForm
    }

    /// `:a:b` form, always.
    public var pathForm: String { components.map { ":" + PrefKeyPath.escape($0) }.joined() }

    /// A `:` inside a component is written `\:`, a backslash `\\` and NUL `\0`.
    public static func escape(_ component: String) -> String {
        guard component.utf8.contains(where: { $0 == 0x3A || $0 == 0x5C || $0 == 0 }) else { return component }
        var escaped = ""
        for scalar in component.unicodeScalars {
            switch scalar {
            case "\u{0}": escaped += "\\0"
            case ":", "\\": escaped += "\\" + String(scalar)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// Runs `body`; an `unrepresentable` error escaping it gets `component` prepended to its path.
    /// Encoders use it so the path is built only while an error unwinds.
    @inline(__always)
    static func locating<T>(_ component: String, _ body: () throws -> T) rethrows -> T {
        do {
            return try body()
        } catch PrefsError.unrepresentable(let format, let path, let reason) {
            throw PrefsError.unrepresentable(format: format, keyPath: ":" + escape(component) + path, reason: reason)
        }
    }
}
