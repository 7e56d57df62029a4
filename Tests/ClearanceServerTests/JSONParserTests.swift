@testable import ClearanceServer
import Testing

@Suite("JSONParser")
struct JSONParserTests {
    @Test func parsesValuesAndKeepsNumberText() throws {
        let value = try JSONParser.parse(#" {"a":[1,-2.50,1e400,true,false,null],"b":"x\"\u00e9\ud83d\ude00"} "#)
        #expect(value == .object([
            "a": .array([.number("1"), .number("-2.50"), .number("1e400"), .bool(true), .bool(false), .null]),
            "b": .string("x\"é😀"),
        ]))
        #expect(value.jsonText == #"{"a":[1,-2.50,1e400,true,false,null],"b":"x\"é😀"}"#)
    }

    @Test(arguments: [
        "", "{", "{\"a\"}", "{\"a\":}", "[1,]", "01", "1.", "-", "\"\\x\"", "\"\u{01}\"", "\"\\ud800\"",
        "nul", "{} {}", "{'a':1}", "[1 2]",
    ])
    func refusesMalformedText(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
    }

    @Test func refusesDeepNesting() {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: JSONParseError.tooDeep) { try JSONParser.parse(deep) }
        let fine = String(repeating: "[", count: 50) + String(repeating: "]", count: 50)
        #expect(throws: Never.self) { try JSONParser.parse(fine) }
    }

    @Test func objectMembersKeepTheirSourceText() throws {
        let members = try JSONParser.parseObjectMembers(#"{"event":"client-x","data": {"b" : 1.0, "a":[ ]} }"#)
        #expect(members["event"]?.value == .string("client-x"))
        #expect(members["data"]?.rawText == #"{"b" : 1.0, "a":[ ]}"#)
        #expect(throws: JSONParseError.notAnObject) { try JSONParser.parseObjectMembers("[1]") }
    }

    @Test func writerEscapesLikeJSONStringify() {
        #expect(JSONWriter.quoted("a\"b\\c\n\t\u{01}/é") == #""a\"b\\c\n\t\u0001/é""#)
    }
}
