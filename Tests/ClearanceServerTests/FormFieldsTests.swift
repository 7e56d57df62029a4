@testable import ClearanceServer
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
}
