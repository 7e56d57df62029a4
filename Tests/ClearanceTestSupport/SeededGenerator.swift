/// SplitMix64: a small, fast, seedable generator, so generated test cases are the same on every run.
package struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// True with probability `probability`.
    package mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < probability
    }

    /// One of `values`.
    package mutating func element<T>(of values: [T]) -> T {
        values[Int.random(in: 0..<values.count, using: &self)]
    }

    /// `count` random bytes, filled eight at a time.
    package mutating func bytes(_ count: Int) -> [UInt8] {
        // Never `unsafeUninitializedCapacity: 0`: it writes the count of the one shared empty-array
        // storage, a race ThreadSanitizer reports (as it did in SecretBox.open).
        guard count > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            var offset = 0
            while offset + 8 <= count {
                raw.storeBytes(of: next(), toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            if offset < count {
                var last = next()
                while offset < count {
                    raw[offset] = UInt8(truncatingIfNeeded: last)
                    last >>= 8
                    offset += 1
                }
            }
            initialized = count
        }
    }
}
