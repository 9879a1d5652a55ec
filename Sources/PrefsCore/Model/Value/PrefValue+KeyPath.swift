/// Reading and changing values at a key path inside a dictionary.
///
/// A component names a key in a dictionary, or an index (decimal digits) in an array. Reading stops
/// with nil at a missing key or index. Writing creates missing dictionaries along the way and may
/// append to an array by naming the index one past its end. Going through a scalar, or using a
/// non-number as an array index, is an error; so is a path `PrefKeyPath.check` refuses (empty, or
/// deeper than any document).
extension PrefDictionary {
    public func value(at path: PrefKeyPath) throws -> PrefValue? {
        try path.check(in: nil)
        return try PrefValue.dictionary(self).value(at: path.components[...])
    }

    public mutating func setValue(_ value: PrefValue, at path: PrefKeyPath) throws {
        try path.check(in: nil)
        var root = PrefValue.dictionary(self)
        self = PrefDictionary()  // keep `root` uniquely referenced while it is edited
        defer { if case .dictionary(let edited) = root { self = edited } }
        try root.setValue(value, at: path.components[...])
    }

    @discardableResult
    public mutating func removeValue(at path: PrefKeyPath) throws -> PrefValue? {
        try path.check(in: nil)
        var root = PrefValue.dictionary(self)
        self = PrefDictionary()
        defer { if case .dictionary(let edited) = root { self = edited } }
        return try root.removeValue(at: path.components[...])
    }
}

/// Why a key path could not be followed; `attributing` turns it into a `PrefsError` naming the
/// domain and key.
public struct PrefKeyPathError: Error, Equatable {
    public let reason: String

    public init(reason: String) { self.reason = reason }

    package static func attributing<T>(domain: String, path: PrefKeyPath, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PrefKeyPathError {
            throw PrefsError.typeMismatch(domain: domain, key: path.display, reason: error.reason)
        }
    }
}

extension PrefValue {
    static func index(_ component: String, count: Int) throws(PrefKeyPathError) -> Int {
        guard let index = Int(component), index >= 0, String(index) == component else {
            throw PrefKeyPathError(reason: "\"\(component)\" is not an index into an array of \(count)")
        }
        return index
    }

    func value(at path: ArraySlice<String>) throws(PrefKeyPathError) -> PrefValue? {
        guard let component = path.first else { return self }
        switch self {
        case .dictionary(let dictionary):
            return try dictionary[component]?.value(at: path.dropFirst())
        case .array(let elements):
            let index = try PrefValue.index(component, count: elements.count)
            return index < elements.count ? try elements[index].value(at: path.dropFirst()) : nil
        default:
            throw PrefKeyPathError(reason: "\"\(component)\" is inside \(typeNameWithArticle), which has no keys")
        }
    }

    mutating func setValue(_ value: PrefValue, at path: ArraySlice<String>) throws(PrefKeyPathError) {
        guard let component = path.first else {
            self = value
            return
        }
        // Take the dictionary out of `self` (not by `switch`, whose copy of `self` would keep a second
        // reference for the whole case body and make every edit copy the whole dictionary).
        if var dictionary = takeDictionary() {
            var child = dictionary.removeValue(forKey: component) ?? .dictionary(PrefDictionary())
            defer {
                dictionary[component] = child
                self = .dictionary(dictionary)
            }
            try child.setValue(value, at: path.dropFirst())
            return
        }
        switch self {
        case .array(var elements):
            let index = try PrefValue.index(component, count: elements.count)
            guard index <= elements.count else {
                throw PrefKeyPathError(reason: "index \(index) is beyond the end of an array of \(elements.count)")
            }
            self = .bool(false)
            defer { self = .array(elements) }
            if index == elements.count { elements.append(.dictionary(PrefDictionary())) }
            try elements[index].setValue(value, at: path.dropFirst())
        default:
            throw PrefKeyPathError(reason: "\"\(component)\" is inside \(typeNameWithArticle), which has no keys")
        }
    }

    /// The dictionary this value is, moved out (leaving a placeholder) so it is uniquely referenced.
    mutating func takeDictionary() -> PrefDictionary? {
        guard case .dictionary(let dictionary) = self else { return nil }
        self = .bool(false)
        return dictionary
    }

    mutating func removeValue(at path: ArraySlice<String>) throws(PrefKeyPathError) -> PrefValue? {
        guard let component = path.first else { return nil }
        if case .dictionary(let dictionary) = self, dictionary[component] == nil { return nil }
        if var dictionary = takeDictionary() {
            defer { self = .dictionary(dictionary) }
            if path.count == 1 { return dictionary.removeValue(forKey: component) }
            var child = dictionary.removeValue(forKey: component)!
            defer { dictionary[component] = child }
            return try child.removeValue(at: path.dropFirst())
        }
        switch self {
        case .array(var elements):
            let index = try PrefValue.index(component, count: elements.count)
            guard index < elements.count else { return nil }
            self = .bool(false)
            defer { self = .array(elements) }
            if path.count == 1 { return elements.remove(at: index) }
            return try elements[index].removeValue(at: path.dropFirst())
        default:
            throw PrefKeyPathError(reason: "\"\(component)\" is inside \(typeNameWithArticle), which has no keys")
        }
    }
}
