import ClearanceWire
import Testing

@Suite("FormFields")
struct FormFieldsTests {
    @Test func decodesPercentEscapesAndPlus() {
        let fields = FormFields(parsing: "socket_id=123.456&channel_name=presence%2Droom+1&channel_name%5B0%5D=a&empty=&flag")
        #expect(fields.first("socket_id") == "123.456")
        #expect(fields.first("channel_name") == "presence-room 1")
        #expect(fields.first("channel_name[0]") == "a")
        #expect(fields.first("empty") == "")
        #expect(fields.first("flag") == "")
        #expect(!fields.isMalformed)
        #expect(fields.duplicateName == nil)
    }

    @Test func flagsMalformedEscapesButKeepsTheRawText() {
        let fields = FormFields(parsing: "a=%zz&b=%e9")
        #expect(fields.isMalformed)
        #expect(fields.first("a") == "%zz")
    }

    @Test func findsDuplicates() {
        #expect(FormFields(parsing: "a=1&b=2&a=3").duplicateName == "a")
        #expect(FormFields(parsing: "a=1&b=2&a=3").all("a") == ["1", "3"])
    }

    @Test func encodesInBothStylesAndRoundTrips() {
        let pairs: [(name: String, value: String)] = [("socket_id", "1.2"), ("channel_name", "private-a b*~é")]
        #expect(FormFields.encode(pairs) == "socket_id=1.2&channel_name=private-a+b*%7E%C3%A9")
        #expect(FormFields.encode(pairs, style: .rfc3986) == "socket_id=1.2&channel_name=private-a%20b%2A~%C3%A9")
        for style in [FormFields.Style.form, .rfc3986] {
            let decoded = FormFields(parsing: FormFields.encode(pairs, style: style))
            #expect(decoded.first("channel_name") == "private-a b*~é")
            #expect(!decoded.isMalformed)
        }
        #expect(FormFields(parsing: "a=1&a=2&b=3").firstValues == ["a": "1", "b": "3"])
    }

    @Test func strictDecodingRefusesMalformedEscapesAndBadUTF8() {
        #expect(PercentEncoding.decode("a%2Bb+c", plusAsSpace: true) == "a+b c")
        #expect(PercentEncoding.decode("a+b") == "a+b")
        #expect(PercentEncoding.decode("%zz") == nil)
        #expect(PercentEncoding.decode("%e9") == nil)
        #expect(PercentEncoding.decode("%") == nil)
    }
}
