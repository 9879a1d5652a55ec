import Glibc

extension String {
    /// Compares by UTF-8 bytes, which is Unicode code-point order. Unlike `<` and `==` on String, it
    /// does not treat canonically equivalent strings (NFC "é" and NFD "e\u{301}") as equal.
    @inlinable
    func utf8Compare(_ other: String) -> Int {
        var a = self, b = other
        return a.withUTF8 { pa in
            b.withUTF8 { pb in
                let common = Swift.min(pa.count, pb.count)
                if common > 0 {
                    let r = memcmp(pa.baseAddress!, pb.baseAddress!, common)
                    if r != 0 { return r < 0 ? -1 : 1 }
                }
                return pa.count == pb.count ? 0 : (pa.count < pb.count ? -1 : 1)
            }
        }
    }
}

/// A String that hashes and compares by its UTF-8 bytes; the key type for any table of strings
/// inside PrefsCore.
struct ExactString: Hashable {
    let string: String
    init(_ string: String) { self.string = string }

    static func == (lhs: ExactString, rhs: ExactString) -> Bool { lhs.string.utf8Compare(rhs.string) == 0 }

    func hash(into hasher: inout Hasher) {
        var s = string
        s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
