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
