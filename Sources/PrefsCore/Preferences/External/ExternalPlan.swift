/// What a change does with one key's value in a suite that keeps external values
/// (`ExternalTransaction.run`): the decision alone, from facts about the value before and after the
/// change, so that it reads, and is tested, as a table; `ExternalTransaction` gathers the facts and
/// carries the action out. The costly facts (the new value's shape, a blob read or a value hashed
/// to compare them, a value encoded to weigh it) are asked only when the rows above do not decide.
enum ExternalPlan {
    enum Action: Equatable {
        /// Store the key's old stored form again (its reference): the value is what it was.
        case restoreStored
        /// Store the value as the change left it.
        case keep
        /// Refuse the change: a reference it may not make, or a value holding the marker key.
        case refuse
        /// Store the value the reference names, read in: the suite's format cannot hold a reference.
        case readIn
        /// Write the value to a new blob, and store its reference.
        case writeBlob
    }

    /// The shape of the value the change left.
    enum Shape: Equatable {
        /// A reference: one the change may store (`known`: the key's own, another key's it moved,
        /// or a blob written for this change), or not.
        case reference(known: Bool)
        /// Not a reference, but the marker key is inside it.
        case markerInside
        case plain
    }

    struct Facts {
        /// The key was stored before the change.
        var hadValue: Bool
        /// The key's external value was read in for the change, and the change left it as read.
        var readInAndUnchanged: Bool
        /// The value equals what was stored.
        var unchanged: Bool
        /// The suite's format keeps a reference's integers (not OpenStep, which writes numbers as text).
        var canHoldReferences: Bool
        /// What was stored was a reference.
        var hadReference: Bool
        var shape: () -> Shape
        /// A reference to another blob that holds what the old one does.
        var sameAsOldBlob: () -> Bool
        /// A plain value that the old reference's blob holds exactly.
        var oldBlobHoldsIt: () -> Bool
        /// A plain value that goes to a blob (its size, or `--external`; never with `--inline`).
        var goesExternal: () throws -> Bool
    }

    static func decide(_ facts: Facts) throws -> Action {
        if facts.hadValue && facts.readInAndUnchanged { return .restoreStored }
        if facts.hadValue && facts.unchanged { return .keep }
        switch facts.shape() {
        case .reference(known: false), .markerInside:
            return .refuse
        case .reference(known: true):
            if !facts.canHoldReferences { return .readIn }
            return facts.hadValue && facts.hadReference && facts.sameAsOldBlob() ? .restoreStored : .keep
        case .plain:
            // The value the blob holds: a no-op, wherever the value would go (`--inline` too).
            if facts.hadValue && facts.hadReference && facts.oldBlobHoldsIt() { return .restoreStored }
            return try facts.canHoldReferences && facts.goesExternal() ? .writeBlob : .keep
        }
    }
}
