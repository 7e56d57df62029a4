/// Comparisons whose running time does not depend on the contents of what is compared.
enum ConstantTime {
    /// Whether the `count` bytes at `a` and `b` are equal.
    ///
    /// Every byte pair is visited: differences are accumulated with XOR/OR and only the final
    /// accumulator is tested, so there is no early exit revealing where the first mismatch is.
    static func equal(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Bool {
        var difference: UInt8 = 0
        var i = 0
        while i < count {
            difference |= a.load(fromByteOffset: i, as: UInt8.self) ^ b.load(fromByteOffset: i, as: UInt8.self)
            i &+= 1
        }
        return difference == 0
    }
}
