/// Comparison of secrets and signatures whose running time does not depend on where the inputs
/// first differ.
///
/// The bytes are combined with an XOR accumulator over the whole of `expected`; a length
/// difference is folded into the result rather than returned early (lengths are not secret:
/// a hex SHA-256 signature is always 64 characters).
public enum ConstantTimeComparison: Sendable {
    /// Whether `expected` and `given` hold the same bytes.
    @inline(never)
    public static func equals(_ expected: UnsafeRawBufferPointer, _ given: UnsafeRawBufferPointer) -> Bool {
        let givenCount = given.count
        var difference: UInt8 = expected.count == givenCount ? 0 : 1
        for index in 0..<expected.count {
            let other: UInt8 = index < givenCount ? given[index] : 0
            difference |= expected[index] ^ other
        }
        return difference == 0
    }

    /// Whether the UTF-8 encodings of `expected` and `given` are the same bytes.
    public static func equals(_ expected: String, _ given: String) -> Bool {
        expected.withUTF8Buffer { expectedBytes in
            given.withUTF8Buffer { givenBytes in
                equals(expectedBytes, givenBytes)
            }
        }
    }

    /// Whether `expected` and `given` hold the same bytes.
    public static func equals(_ expected: [UInt8], _ given: [UInt8]) -> Bool {
        expected.withUnsafeBytes { expectedBytes in
            given.withUnsafeBytes { givenBytes in
                equals(expectedBytes, givenBytes)
            }
        }
    }
}
