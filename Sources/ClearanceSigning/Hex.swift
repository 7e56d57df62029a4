import ClearanceWire
import Foundation

/// Lower-case hexadecimal encoding through a lookup table, straight into preallocated storage.
/// `package`: the development servers' edition passwords use it too.
package enum Hex {
    private static let digits: StaticString = "0123456789abcdef"

    /// Writes `2 * bytes.count` lower-case hex digits to `output`, starting at `offset`.
    /// Returns the offset just past the last digit written.
    @inline(__always)
    static func write(
        _ bytes: UnsafeRawBufferPointer,
        into output: UnsafeMutableBufferPointer<UInt8>,
        at offset: Int
    ) -> Int {
        let table = digits.utf8Start
        var position = offset
        for byte in bytes {
            output[position] = table[Int(byte >> 4)]
            output[position &+ 1] = table[Int(byte & 0x0F)]
            position &+= 2
        }
        return position
    }

    /// `prefix` followed by the hex encoding of `bytes`, built in a single allocation.
    @inline(__always)
    package static func string(prefix: [UInt8] = [], bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: prefix.count + 2 * bytes.count) { output in
            var position = 0
            for byte in prefix {
                output[position] = byte
                position &+= 1
            }
            return write(bytes, into: output, at: position)
        }
    }

    /// Decodes lower-case hex text (the form Pusher signatures take) into `output`; false for
    /// anything else: another length than `2 * output.count`, upper-case digits, other characters.
    package static func decodeLowercase(_ text: String, into output: UnsafeMutableBufferPointer<UInt8>) -> Bool {
        text.withUTF8Buffer { digits in
            guard digits.count == 2 * output.count else { return false }
            for index in 0..<output.count {
                guard let high = value(digits[2 * index]), let low = value(digits[2 * index + 1]) else { return false }
                output[index] = high << 4 | low
            }
            return true
        }
    }

    /// The hex encoding of `bytes` (a digest, a MAC).
    package static func string(_ bytes: some ContiguousBytes) -> String {
        bytes.withUnsafeBytes { string(bytes: $0) }
    }

    /// The bytes of lower-case hex `text`; nil for anything else.
    package static func decodeLowercase(_ text: String) -> [UInt8]? {
        guard text.utf8.count % 2 == 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: text.utf8.count / 2)
        let valid = bytes.withUnsafeMutableBufferPointer { decodeLowercase(text, into: $0) }
        return valid ? bytes : nil
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
