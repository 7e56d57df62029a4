import ClearanceWire
import Testing

@Suite("JSONScanner")
struct JSONScannerTests {
    @Test func parsesValuesAndKeepsNumberText() throws {
        let value = try JSONScanner.parse(#" {"a":[1,-2.50,1e400,true,false,null],"b":"x\"\u00e9\ud83d\ude00"} "#)
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
        #expect(throws: JSONParseError.self) { try JSONScanner.parse(text) }
    }

    @Test func refusesDeepNesting() {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: JSONParseError.tooDeep) { try JSONScanner.parse(deep) }
        let fine = String(repeating: "[", count: 50) + String(repeating: "]", count: 50)
        #expect(throws: Never.self) { try JSONScanner.parse(fine) }
    }

    @Test func objectMembersKeepTheirSourceText() throws {
        let members = try JSONScanner.parseObjectMembers(#"{"event":"client-x","data": {"b" : 1.0, "a":[ ]} }"#)
        #expect(members["event"]?.value == .string("client-x"))
        #expect(members["data"]?.rawText == #"{"b" : 1.0, "a":[ ]}"#)
        #expect(throws: JSONParseError.notAnObject) { try JSONScanner.parseObjectMembers("[1]") }
    }

    @Test func writerEscapesLikeJSONStringify() {
        #expect(JSONWriter.quoted("a\"b\\c\n\t\u{01}/é") == #""a\"b\\c\n\t\u0001/é""#)
    }

    @Test func objectScanFindsMembersWithoutBuildingAnything() throws {
        let text = #"{"user_id":"a\u002Fb","x":{"y":[1,2]},"user_id":7}"#
        let lookups = try #require(text.withUTF8Buffer { JSONScanner.scanObject($0, keys: ["user_id", "x", "missing"]) })
        #expect(lookups[0].occurrences == 2)
        #expect(lookups[0].member?.kind == .number)
        #expect(lookups[1].member?.kind == .object)
        #expect(lookups[2].member == nil && lookups[2].occurrences == 0)
        // A lone surrogate is valid for validation (as in JavaScript), but not decodable.
        let lone = #"{"k":"\ud800"}"#
        let found = try #require(lone.withUTF8Buffer { JSONScanner.scanObject($0, keys: ["k"]) })
        let range = try #require(found[0].member?.range)
        #expect(lone.withUTF8Buffer { JSONScanner.decodeString($0, range: range) } == nil)
        #expect("[1]".withUTF8Buffer { JSONScanner.scanObject($0, keys: []) } == nil)
        #expect("{} x".withUTF8Buffer { JSONScanner.scanObject($0, keys: []) } == nil)
    }

    @Test func containersNestAtMostMaxDepth() {
        func nested(_ depth: Int) -> String { String(repeating: "[", count: depth) + String(repeating: "]", count: depth) }
        #expect(throws: Never.self) { try JSONScanner.parse(nested(JSONScanner.maxDepth)) }
        #expect(throws: JSONParseError.tooDeep) { try JSONScanner.parse(nested(JSONScanner.maxDepth + 1)) }
    }

    @Test func valueAccessorsReadIdsAsServersSendThem() throws {
        let value = try JSONScanner.parse(#"{"id":42,"sid":"42","f":1.0,"s":"x","a":[1]}"#)
        #expect(value["id"]?.scalarText == "42" && value["sid"]?.scalarText == "42")
        #expect(value["id"]?.intValue == 42 && value["sid"]?.intValue == 42 && value["f"]?.intValue == 1)
        #expect(value["s"]?.intValue == nil && value["a"]?.arrayValue?.count == 1 && value["missing"] == nil)
        #expect(JSONValue(parsing: "{") == nil)
    }

    @Test func objectWriterWritesMembersInOrder() {
        #expect(JSONWriter.object(["b": "1", "a": "é\n"]) == #"{"b":"1","a":"é\n"}"#)
        #expect(JSONWriter.object(raw: [("n", "1"), ("o", "{}")]) == #"{"n":1,"o":{}}"#)
    }
}
