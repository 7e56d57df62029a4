/// The one percent-encoding codec in Clearance.
///
/// - ``encode(_:)``: RFC 3986 §2.3: the unreserved characters `A-Z a-z 0-9 - . _ ~` are kept,
///   every other UTF-8 byte becomes `%HH` (upper-case hex). Used for URL paths and queries, the
///   Pusher HTTP API's signed query, and channel auth form bodies.
/// - ``formEncode(_:)``: `application/x-www-form-urlencoded` as the WHATWG URL standard
///   serializes it, which RFC 6749 Appendix B requires for OAuth 2.0: letters, digits and
///   `* - . _` are kept, space becomes `+`, every other byte `%HH`.
/// - ``decode(_:plusAsSpace:)``: strict decoding; nil for a malformed escape or bytes that are not
///   UTF-8. ``FormFields`` is the lenient reader built on it.
package enum PercentEncoding {
    /// RFC 3986 percent-encoding of one component.
    package static func encode(_ text: String) -> String {
        encode(text, keeping: unreserved)
    }

    /// `application/x-www-form-urlencoded` encoding of one name or value (WHATWG, RFC 6749 App. B).
    package static func formEncode(_ text: String) -> String {
        encode(text, keeping: formKept, spaceAsPlus: true)
    }

    /// `A-Z a-z 0-9 - . _ ~`.
    private static let unreserved = byteSet("-._~")
    /// `A-Z a-z 0-9 * - . _`.
    private static let formKept = byteSet("*-._")

    /// A 256-entry table: letters, digits and `extra` are true.
    private static func byteSet(_ extra: String) -> [Bool] {
        var table = [Bool](repeating: false, count: 256)
        for byte in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8 { table[Int(byte)] = true }
        for byte in extra.utf8 { table[Int(byte)] = true }
        return table
    }

    /// Decodes `%HH` escapes (and `+` as a space when asked). Nil for a malformed escape or a
    /// result that is not valid UTF-8.
    package static func decode(_ text: some StringProtocol, plusAsSpace: Bool = false) -> String? {
        Array(text.utf8).withUnsafeBufferPointer { decode(utf8: $0, plusAsSpace: plusAsSpace) }
    }

    /// ``decode(_:plusAsSpace:)`` of UTF-8 bytes. It walks raw bytes: form bodies can be large
    /// (a 60 KB field is allowed), and walking a string by its characters took half of such a
    /// request's time in a debug build.
    package static func decode(utf8: UnsafeBufferPointer<UInt8>, plusAsSpace: Bool = false) -> String? {
        let percent = UInt8(ascii: "%"), plus = UInt8(ascii: "+")
        var escaped = false
        var index = 0
        while index < utf8.count, !escaped {
            escaped = utf8[index] == percent || (plusAsSpace && utf8[index] == plus)
            index += 1
        }
        guard escaped else { return validUTF8(utf8) }
        var output = [UInt8](repeating: 0, count: utf8.count)
        var written = 0
        index = 0
        while index < utf8.count {
            let byte = utf8[index]
            if byte == percent {
                guard index + 2 < utf8.count, let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2]) else {
                    return nil
                }
                output[written] = high << 4 | low
                index += 3
            } else {
                output[written] = plusAsSpace && byte == plus ? UInt8(ascii: " ") : byte
                index += 1
            }
            written += 1
        }
        return output.withUnsafeBufferPointer { validUTF8(UnsafeBufferPointer(rebasing: $0[..<written])) }
    }

    /// `bytes` as a string, or nil when they are not valid UTF-8.
    package static func validUTF8(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { validUTF8($0) }
    }

    /// `bytes` as a string, or nil when they are not valid UTF-8.
    package static func validUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            return String(validating: bytes, as: UTF8.self)
        }
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        var result = ""
        result.unicodeScalars.reserveCapacity(bytes.count)
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): result.unicodeScalars.append(scalar)
            case .emptyInput: return result
            case .error: return nil
            }
        }
    }

    private static func encode(_ text: String, keeping kept: [Bool], spaceAsPlus: Bool = false) -> String {
        let hexDigits: StaticString = "0123456789ABCDEF"
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if kept[Int(byte)] {
                output.append(byte)
            } else if spaceAsPlus && byte == UInt8(ascii: " ") {
                output.append(UInt8(ascii: "+"))
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigits.utf8Start[Int(byte >> 4)])
                output.append(hexDigits.utf8Start[Int(byte & 0x0F)])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
