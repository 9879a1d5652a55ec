/// Counters: `write … -int-add N` and `-float-add N`, done under the suite's lock.
extension PrefValue {
    /// `stored + amount`, where a missing value counts as 0. Integers add exactly and must stay within
    /// −2^63…2^64−1; reals add as 64-bit IEEE numbers and a finite sum must stay finite. Anything else
    /// (a string, a bool, an integer plus a real) is a type mismatch: the reason is thrown as a
    /// `PrefKeyPathError`, never a silent 0.
    package static func sum(_ stored: PrefValue?, _ amount: PrefValue) throws(PrefKeyPathError) -> PrefValue {
        switch (stored, amount) {
        case (nil, .integer), (nil, .unsignedInteger), (nil, .real):
            return amount
        case (.some(let stored), _) where stored.integerValue != nil && amount.integerValue != nil:
            let total = stored.integerValue! + amount.integerValue!
            guard total >= Int128(Int64.min), total <= Int128(UInt64.max) else {
                throw PrefKeyPathError(reason: "adding \(amount.integerValue!) to \(stored.integerValue!) leaves the integer range")
            }
            return total < 0 ? .integer(Int64(total)) : .unsigned(UInt64(total))
        case (.real(let a)?, .real(let b)):
            let total = a + b
            guard total.isFinite || !a.isFinite || !b.isFinite else {
                throw PrefKeyPathError(reason: "adding \(b) to \(a) leaves the range of 64-bit reals")
            }
            return .real(total)
        case (let stored?, _):
            let flag = amount.integerValue != nil ? "-int-add" : "-float-add"
            let hint = stored.integerValue != nil ? " (use -int-add)" : (stored.isReal ? " (use -float-add)" : "")
            throw PrefKeyPathError(reason: "\(flag) needs \(amount.typeNameWithArticle), and the value is \(stored.typeNameWithArticle)\(hint)")
        default:
            throw PrefKeyPathError(reason: "\(amount.typeName) cannot be added")
        }
    }

    var integerValue: Int128? {
        switch self {
        case .integer(let i): return Int128(i)
        case .unsignedInteger(let u): return Int128(u)
        default: return nil
        }
    }

    var isReal: Bool {
        if case .real = self { return true }
        return false
    }
}
