import ClearanceWire

/// The one constant-time comparison in Clearance, for secrets that are not MACs (tokens,
/// passwords, keys, `state`); MACs are compared by swift-crypto's own constant-time equality.
///
/// Every byte of `expected` is visited and differences are accumulated with XOR/OR; a length
/// difference is folded into the result rather than returned early (lengths are not secret).
public enum ConstantTime {
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
            given.withUTF8Buffer { givenBytes in equals(expectedBytes, givenBytes) }
        }
    }

    /// Whether `expected` and `given` hold the same bytes.
    public static func equals(_ expected: [UInt8], _ given: [UInt8]) -> Bool {
        expected.withUnsafeBytes { expectedBytes in
            given.withUnsafeBytes { givenBytes in equals(expectedBytes, givenBytes) }
        }
    }
}
