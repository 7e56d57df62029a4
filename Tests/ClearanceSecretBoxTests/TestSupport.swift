import Foundation

/// Bytes from a hex string; whitespace is ignored. Traps on malformed input (test fixtures only).
func hex(_ string: String) -> [UInt8] {
    let digits = string.unicodeScalars.filter { !$0.properties.isWhitespace }.map { scalar -> UInt8 in
        switch scalar.value {
        case 0x30...0x39: UInt8(scalar.value - 0x30)
        case 0x61...0x66: UInt8(scalar.value - 0x61 + 10)
        case 0x41...0x46: UInt8(scalar.value - 0x41 + 10)
        default: fatalError("not a hex digit: \(scalar)")
        }
    }
    precondition(digits.count % 2 == 0, "odd number of hex digits")
    return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
}

/// Lower-case hex of `bytes` (for failure messages).
func hexString(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0xF)])
    }
    return String(decoding: out, as: UTF8.self)
}

/// SplitMix64: a small, fast, seedable generator so test cases are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` random bytes, filled eight at a time.
    mutating func bytes(_ count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
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

/// The package root: this file is <root>/Tests/ClearanceSecretBoxTests/TestSupport.swift.
/// Symlinks are resolved so a scratch package that links the test directory still finds it.
func packageRoot(filePath: String = #filePath) -> URL {
    URL(fileURLWithPath: filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent()  // ClearanceSecretBoxTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
}
