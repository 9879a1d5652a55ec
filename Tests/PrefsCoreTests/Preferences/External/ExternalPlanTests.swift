import Testing
@testable import PrefsCore

/// `ExternalPlan.decide` as the table it is: each row the facts of one key's value before and after
/// a change, the action, and the costly facts it may ask (the others must not be asked: a large
/// value left alone is never hashed, encoded or compared with a blob).
@Suite struct ExternalPlanTests {
    struct Row: CustomTestStringConvertible, Sendable {
        let name: String
        var hadValue = true, readInAndUnchanged = false, unchanged = false, canHoldReferences = true, hadReference = false
        var shape = ExternalPlan.Shape.plain
        var sameAsOldBlob = false, oldBlobHoldsIt = false, goesExternal = false
        let action: ExternalPlan.Action
        let asks: Set<String>
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "read in, left as read: its reference again", readInAndUnchanged: true, action: .restoreStored, asks: []),
        Row(name: "left as stored", unchanged: true, action: .keep, asks: []),
        Row(name: "a reference the change may not make", shape: .reference(known: false), action: .refuse, asks: ["shape"]),
        Row(name: "the marker inside a value", shape: .markerInside, action: .refuse, asks: ["shape"]),
        Row(name: "a streamed value, a format without references: read in", canHoldReferences: false, shape: .reference(known: true),
            action: .readIn, asks: ["shape"]),
        Row(name: "another blob with the same bytes: the old reference", hadReference: true, shape: .reference(known: true),
            sameAsOldBlob: true, action: .restoreStored, asks: ["shape", "sameAsOldBlob"]),
        Row(name: "another blob with other bytes", hadReference: true, shape: .reference(known: true), action: .keep,
            asks: ["shape", "sameAsOldBlob"]),
        Row(name: "a reference for a new key", hadValue: false, shape: .reference(known: true), action: .keep, asks: ["shape"]),
        Row(name: "the value its blob holds, written again (--inline too)", hadReference: true, oldBlobHoldsIt: true, goesExternal: true,
            action: .restoreStored, asks: ["shape", "oldBlobHoldsIt"]),
        Row(name: "a large value", goesExternal: true, action: .writeBlob, asks: ["shape", "goesExternal"]),
        Row(name: "a large value replacing another", hadReference: true, goesExternal: true, action: .writeBlob,
            asks: ["shape", "oldBlobHoldsIt", "goesExternal"]),
        Row(name: "a large value, a format without references", canHoldReferences: false, goesExternal: true, action: .keep, asks: ["shape"]),
        Row(name: "a small value", action: .keep, asks: ["shape", "goesExternal"]),
        Row(name: "a small value for a new key", hadValue: false, action: .keep, asks: ["shape", "goesExternal"]),
    ]

    final class Asked: @unchecked Sendable {
        var names = Set<String>()
    }

    @Test(arguments: rows)
    func eachRow(_ row: Row) throws {
        let asked = Asked()
        let facts = ExternalPlan.Facts(
            hadValue: row.hadValue, readInAndUnchanged: row.readInAndUnchanged, unchanged: row.unchanged,
            canHoldReferences: row.canHoldReferences, hadReference: row.hadReference,
            shape: { asked.names.insert("shape"); return row.shape },
            sameAsOldBlob: { asked.names.insert("sameAsOldBlob"); return row.sameAsOldBlob },
            oldBlobHoldsIt: { asked.names.insert("oldBlobHoldsIt"); return row.oldBlobHoldsIt },
            goesExternal: { asked.names.insert("goesExternal"); return row.goesExternal })
        #expect(try ExternalPlan.decide(facts) == row.action)
        #expect(asked.names == row.asks)
    }
}
