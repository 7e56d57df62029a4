/// Lower-case hexadecimal encoding through a lookup table, straight into preallocated storage.
enum Hex {
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
    static func string(prefix: [UInt8] = [], bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: prefix.count + 2 * bytes.count) { output in
            var position = 0
            for byte in prefix {
                output[position] = byte
                position &+= 1
            }
            return write(bytes, into: output, at: position)
        }
    }

    /// The bytes of lower-case hex text (the form Pusher signatures take), or nil for anything
    /// else: an odd length, upper-case digits, other characters.
    static func decodeLowercase(_ text: String) -> [UInt8]? {
        let utf8 = text.utf8
        guard utf8.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
        var high: UInt8?
        for character in utf8 {
            let value: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = character - UInt8(ascii: "a") + 10
            default: return nil
            }
            if let first = high {
                bytes.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return bytes
    }
}
