// A Swift program that uses Foundation's UserDefaults, for the interoperability tests: it writes a
// suite with every type, or reads every key of a suite and prints `key<TAB>type<TAB>value` lines.
// XDG_CONFIG_HOME (set by the test) decides where UserDefaults keeps suites on Linux.
//   UserDefaultsHelper write SUITE | read SUITE
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 3, let defaults = UserDefaults(suiteName: arguments[2]) else {
    FileHandle.standardError.write("usage: UserDefaultsHelper write|read SUITE\n".data(using: .utf8)!)
    exit(64)
}

func describe(_ value: Any) -> (String, String) {
    if type(of: value) == Bool.self { return ("boolean", String(value as! Bool)) }
    switch value {
    case let s as String: return ("string", s)
    case let d as Date: return ("date", String(d.timeIntervalSinceReferenceDate))
    case let d as Data: return ("data", d.map { String(format: "%02x", $0) }.joined())
    case let n as NSNumber:
        // CoreFoundation's booleans come back as NSNumber with the char type.
        switch String(cString: n.objCType) {
        case "c", "B": return ("boolean", String(n.boolValue))
        case "d", "f": return ("double", String(n.doubleValue))
        default: return ("integer", n.stringValue)
        }
    case let a as [Any]: return ("array", a.map { describe($0).1 }.joined(separator: ","))
    case let d as [String: Any]: return ("dictionary", d.keys.sorted().map { "\($0)=\(describe(d[$0]!).1)" }.joined(separator: ","))
    default: return ("unknown \(type(of: value))", "\(value)")
    }
}

switch arguments[1] {
case "write":
    defaults.set(42, forKey: "integer")
    defaults.set(1.5, forKey: "double")
    defaults.set(true, forKey: "boolean")
    defaults.set("hello world", forKey: "string")
    defaults.set(Date(timeIntervalSinceReferenceDate: 788_929_445), forKey: "date")
    defaults.set(Data([0x0A, 0x0B, 0xFF]), forKey: "data")
    defaults.set(["a", "b"], forKey: "array")
    defaults.set(["width": 640, "title": "main"], forKey: "dictionary")
    guard defaults.synchronize() else { exit(73) }
case "read":
    let suite = defaults.persistentDomain(forName: arguments[2]) ?? [:]
    for key in suite.keys.sorted() {
        let (kind, text) = describe(suite[key]!)
        print("\(key)\t\(kind)\t\(text)")
    }
default:
    exit(64)
}
